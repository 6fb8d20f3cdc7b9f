"""The duel endpoints: create and list duels, append their events, and read them as each token's
view may (board, events, the ``.ygr`` file, the live stream, the viewer's frames, verification,
branches, differences, card facts); the organiser's release and visibility.

Positions are event numbers, as the log numbers events and everywhere else (``show --at N``,
``branch --at N``, ``diff DUEL@N``, the viewer's ``#eN``): ``at=N`` is the board after event #N,
``from=N`` the events from #N on.
"""
from __future__ import annotations

import asyncio
import gzip
from typing import Any, AsyncIterator, Callable

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from ..actions import actions
from ..access import (MODES, PLAYERS, RELEASES, TABLE, VISIBILITIES, ReleaseSettingError, Seating, may_call,
                      may_write, off_side, release_settings, view_of)
from ..application import duel_dict, family, public_duels, violation_dict
from ..errors import StoreUnavailable
from ..events import EVENT_TYPES, from_dict
from ..i18n import N_, beside, say
from ..live import LiveDuel, LiveView, Step
from ..openings import SealReport
from ..receipts import Receipt
from ..text import checked, number
from ..trust import origin_of, trust_of
from ..views import out_of_sight
from .fanout import RETRY, Connection, Feed, Follower, sent
from .common import (
    BODY_LIMITS, KEEPALIVE, MAX_EVENTS, VIEW, Caller, EventStream, HTTPError, _body_json, _events, _receipt,
    _request_events, _ygr, event_json, WRITTEN_SCHEMA, written_at)
from .core import AppendCaller, DirectRoute, DuelCaller, Service, ServiceDep, _Lease, confirmed, organiser

router = APIRouter()
#: What ``POST /duels``' ``set_up`` is, as its schema and its docstring say it.
SET_UP = ("the duel's first events (its duel_started or position_set_up, its decks), written with it, all or none "
          "(a rule broken: 422, no duel): the organiser's, before its table opens. The table's recorder may "
          "still send them as its first append (expected=0): the same events are answered as written, "
          "nothing written twice.")


@router.post("/duels", status_code=201, tags=["organiser"], dependencies=[Depends(organiser)],
             openapi_extra={"requestBody": {"content": {"application/json": {"schema": {
                 "type": "object", "properties": {
                     "title": {"type": "string", "maxLength": 500},
                     "visibility": {"enum": list(VISIBILITIES)},
                     "delay": {"type": "object", "additionalProperties": False, "properties": {
                         "events": {"type": "integer", "minimum": 0, "maximum": 100000},
                         "seconds": {"type": "number", "minimum": 0, "maximum": 86400}}},
                     "release": {"enum": list(RELEASES)}, "event": {"type": "string", "maxLength": 200},
                     "release_at": {"type": "string", "format": "date-time"},
                     "mode": {"enum": list(MODES)}, "warnings": {"type": "boolean"},
                     "set_up": {"type": "array", "items": {"type": "object"}, "maxItems": MAX_EVENTS,
                                "description": SET_UP}}}}}}})
async def create_duel(request: Request, service: ServiceDep) -> dict:
    """A new duel: its id, a token for each role, and a viewer link for each token. ``mode``
    ``witnessed`` records a duel played at a table: an illegal event is kept, flagged (its
    duel_started must say ``"witnessed": true``); ``machine`` (the default) refuses it.
    ``set_up``: """ + SET_UP
    body = await _body_json(request) if await request.body() else {}
    title, visibility, events_delay, seconds_delay, release = _settings(body)
    mode = body.get("mode", "machine")
    if mode not in MODES:
        raise HTTPError(400, say("mode is one of {choices}", choices=", ".join(MODES)), where="mode")
    warnings = body.get("warnings")
    if warnings is not None and not isinstance(warnings, bool):
        raise HTTPError(400, say("warnings is true or false"), where="warnings")
    set_up = body.get("set_up", [])
    if not isinstance(set_up, list):
        raise HTTPError(400, say("the body must be a JSON array of events"), where="set_up")
    base = str(request.base_url).rstrip("/")
    return await asyncio.to_thread(service.create, title, visibility, events_delay, float(seconds_delay), base,
                                   release, mode, warnings, _events(set_up))


def _settings(body: Any) -> tuple[str, str, int, float, tuple[str | None, str | None, str | None]]:
    """A new duel's title, visibility, delay and release policy from its request, or 400 saying
    what is wrong and where."""
    if not isinstance(body, dict):
        raise HTTPError(400, say("the body must be a JSON object"), where="body")
    title = body.get("title", "")
    visibility = body.get("visibility", "unlisted")
    delay = body.get("delay") or {}
    if not isinstance(title, str):
        raise HTTPError(400, say("title must be a string of at most 500 characters"), where="title")
    title = checked(title, "the title", 500)
    if visibility not in VISIBILITIES:
        raise HTTPError(400, say("visibility is one of {choices}", choices=", ".join(VISIBILITIES)), where="visibility")
    if not isinstance(delay, dict):
        raise HTTPError(400, say("delay is {shape}", shape="{events, seconds}"), where="delay")
    strange = sorted(f"delay.{field}" for field in set(delay) - {"events", "seconds"})
    if strange:
        raise HTTPError(400, say("unknown field(s) {fields}", fields=", ".join(strange)), where=strange[0])
    events_delay, seconds_delay = delay.get("events", 0), delay.get("seconds", 0)
    if not (isinstance(events_delay, int) and not isinstance(events_delay, bool) and 0 <= events_delay <= 100000):
        raise HTTPError(400, say("delay.events is a whole number 0..100000"), where="delay.events")
    if not (isinstance(seconds_delay, (int, float)) and not isinstance(seconds_delay, bool)
            and 0 <= seconds_delay <= 86400):
        raise HTTPError(400, say("delay.seconds is a number 0..86400"), where="delay.seconds")
    unknown = set(body) - {"title", "visibility", "delay", "release", "event", "release_at", "mode", "warnings",
                           "set_up"}
    if unknown:
        raise HTTPError(400, say("unknown field(s) {fields}", fields=", ".join(sorted(unknown))), where="body")
    try:
        release = release_settings(body.get("release"), body.get("event"), body.get("release_at"))
    except ReleaseSettingError as exc:
        raise HTTPError(400, str(exc), where=exc.where) from None
    return title, visibility, events_delay, seconds_delay, release


@router.get("/duels", tags=["organiser"])
def list_duels(request: Request, service: ServiceDep, player: str | None = Query(None, max_length=200),
               title: str | None = Query(None, max_length=200), date: str | None = Query(None, max_length=10),
               result: str | None = Query(None, pattern="^(p0|p1|draw|unfinished)$")) -> list[dict]:
    """The duels: all of them for the organiser, the public ones for anyone; filtered by a
    player's name, a title, a date (YYYY-MM-DD) or a result."""
    token = service.token_of(request)
    everyone = service.is_organiser(token)
    if token is not None and not everyone:
        raise HTTPError(403, say("listing all duels needs the organiser's token"))
    records = service.records
    listed = ([{**duel_dict(info), **({"behind_witness": records.behind_witness(info.id) or None}
                                      if records.witness else {})} for info in records.duels(player)]
              if everyone else public_duels(records, service.events_seen, player))
    out = []
    for data in listed:
        if title and title.casefold() not in data["title"].casefold():
            continue
        if date and not data["created"].startswith(date):
            continue
        if result and result != _result_of(data):
            continue
        out.append(data)
    return out


def _result_of(data: dict) -> str:
    if data["status"] != "ended":
        return "unfinished"
    winner = data["result"]["winner"]
    return "draw" if winner is None else f"p{winner}"


async def append(duel_id: str, request: Request, service: ServiceDep, asking: AppendCaller,
                 expected: int | None = Query(None, ge=0, le=10 ** 9),
                 made_on: int | None = Query(None, ge=0, le=10 ** 9,
                                             description="the duel's length when the entry was made (a queued "
                                                         "entry moved after another device's keeps it)"),
                 confirm: bool = Query(False, description="store a turn change that looks entered twice")) -> dict:
    """Append events, checked by the rules exactly as ``record`` checks them: all or none.
    Each goes through the command its typed endpoint uses (``Records.append_records``): a
    ``rolled_back`` or ``judge_note`` is the judge's here as on ``/rollback`` and ``/notes``; a
    player confirms or disputes the other side's entries. In a witnessed duel each is stamped
    with the token's role (``entered_by``), and the answer lists the ``flags`` of the events
    stored (rules broken and kept): to a player's device, as its own view finds them (its frames'),
    never the record's, which may name a card of the other player's it does not see. A player's
    device, and a witnessed duel's recorder (the table's view, ``application.names_view``), names
    every card as its own view does (its board, frames, ``/actions``): each name is
    turned into the record's card id by that view's names (``views.DeviceNames``), a name the
    view does not know refused (400). A turn change that looks entered twice (two devices at one
    table, ``application.repeated_turn``) is ``428 {"error", "message", "message_translated", "confirm"}``
    until sent again with ``confirm=true``."""
    caller, live = asking
    players = PLAYERS if live.access.mode == "witnessed" else ()      # who said so, and their own side
    Service.require(caller, "recorder", "judge", *players)
    events = await _request_events(request)
    writer = service.writes_as(request, caller, live)     # a match's player: seated by the append itself
    if not events:
        if caller.confirm:                      # its access record due: read, in the hop it takes
            await service.in_thread(confirmed, service, request, duel_id, caller)
        # the head as the caller's view has it: a player's of a judge's what-if branch stops where it
        # left (``LiveDuel.branch_cut``), and an empty append (or its ``expected``) told the what-if's length
        head = live.visible(caller.view)
        if expected is not None and expected != head:
            raise HTTPError(409, say("the duel has {head} events, not {expected}", head=head, expected=expected))
        return written_at(head, 0)
    done: list = []

    def appended() -> list:
        confirmed(service, request, duel_id, caller)    # its access record due: read in this hop
        # a player's device names cards as its view does: the names the live view keeps
        written, receipt, flags = service.records.append_records(duel_id, events, expected, writer,
                                                                 names=service.hub.get(duel_id).names,
                                                                 made_on=made_on, confirmed=confirm)
        done.extend((receipt, flags))           # in the same thread: one hop to a thread an append, not two
        return written

    def writing_as() -> str:                    # the seat it wrote as, decided by the append: its flags are that view's
        return view_of(writer.role, live.access.mode) if isinstance(writer, Seating) else caller.view
    first, stop, view, seen = await service.in_thread(_appended_as_seen, service, duel_id, appended, writing_as)
    receipt, flags = done
    stop = receipt.events if stop is None else stop
    if view == "judge":                         # the record's own fold is the judge's view
        return {**written_at(stop, stop - first), **receipt.fields(), "flags": [violation_dict(f) for f in flags]}
    # a player's device, a witnessed duel's recorder (the table's view): the flags its own view's
    # fold finds, as its frames give them (the record's may name a card it does not see); no
    # receipt: the record's head is no player's, nor the table's (from two heads and its view's
    # copy of the entries between, each guess of a hidden card an entry holds could be hashed
    # until one met the next head), as ``/receipt`` is not
    return {**written_at(stop, stop - first), "witnessed": receipt.witnessed, "flags": seen}


def _appended_as_seen(service: Service, duel_id: str, appended: Callable[[], list],
                      writing_as: Callable[[], str]) -> tuple[int, int | None, str, list | None]:
    """The append (``Hub.appending``), then its first event's index, the duel's length, the view its writer reads it
    through once seated (``writing_as``), and but for the judge's the flags that view's own fold
    finds in what it wrote (``LiveDuel.flags``): in the append's own thread, once its records are
    taken in. A second hop to a thread and back was every such append's (each table's
    scorekeeper, a player's device: issue 25)."""
    written = service.hub.appending(duel_id, appended)
    view = writing_as()
    if not written:                  # its set-up sent again (``Records._opening_again``): the receipt's head
        return 0, None, view, None if view == "judge" else []
    first, stop = written[0].position, written[-1].position + 1
    return first, stop, view, None if view == "judge" else service.hub.get(duel_id).flags(view, first, stop)


# a recorder's every event: its plain requests skip FastAPI's dependency solving (``DirectRoute``)
router.add_api_route("/duels/{duel_id}/events", append, methods=["POST"], tags=["recorder"],
                     route_class_override=DirectRoute, responses={200: {"description": "where the events went", "content": {
                         "application/json": {"schema": {**WRITTEN_SCHEMA, "properties": {
                             **WRITTEN_SCHEMA["properties"],
                             "flags": {"type": "array", "description": "the rules the events broke, kept (a witnessed duel): "
                                       "each {index, rule, message}, index numbered as first_index and last_index",
                                       "items": {"type": "object"}},
                             "receipt": {"type": "object"}, "witnessed": {"type": ["object", "null"]}}}}}}},
                     openapi_extra={"requestBody": {"required": True, "description": BODY_LIMITS,
                                                    "content": {"application/json": {"schema": {
                         "type": "array", "items": {"type": "object"}, "maxItems": MAX_EVENTS}},
                         "application/x-ndjson": {"schema": {"type": "string"}}}}})
APPEND_ROUTE = router.routes[-1]          # the app answers it without routing (``core.ServiceApp``)


def _count(live: LiveDuel, view: str, at: int | None) -> int:
    """How many events the board after event #at holds (all this view may see when None)."""
    visible = live.visible(view)
    if at is None:
        return visible
    if at >= visible:
        raise HTTPError(404, say("this view may see events #0..#{last}, not #{at}", last=visible - 1, at=at)
                        if visible else say("this view may see no event yet"))
    return at + 1


@router.get("/duels/{duel_id}/state", tags=["everyone"])
def state(duel_id: str, asking: DuelCaller, at: int | None = Query(None, ge=0, le=10 ** 9),
          view: str | None = Query(None, pattern=VIEW)) -> dict:
    """The board after event ``#at`` (default: the last this view may see), for the token's
    view (or a narrower one); ``at`` is null for a duel with no event yet."""
    caller, live = asking
    view = Service.view_for(caller, view)
    count = _count(live, view, at)
    return {"id": duel_id, "view": view, "at": count - 1 if count else None, "events": live.visible(view),
            "board": live.frame(view, count)}


@router.get("/duels/{duel_id}/actions", tags=["recorder"])
def duel_actions(duel_id: str, service: ServiceDep, asking: DuelCaller, card: str | None = Query(None, max_length=64),
                 shows: str | None = Query(None, max_length=2000)) -> dict:
    """What may be entered next (``actions.py``): the actions that fit ``card`` where it is, or
    without one the turn's own moves. For the duel's writers, each on its own view's board: the
    judge and a machine's recorder the whole record; a witnessed duel's recorder the table's
    (what is public there, ``access.TABLE``); a player's device in a witnessed duel its own view,
    and only the actions its appends may hold: on its own side (``access.off_side``), showing no card of the other
    player's it does not see (``views.out_of_sight``, judged on its view's board, in its names).
    ``shows`` (``p0.m3:12580477,...``) names cards the recorder has just seen: the actions are
    worked out as if they were those cards, and each carries them. The rules' verdict on each
    (legal, undecided, illegal and its rule IDs) is given when the duel's ``warnings`` are on, and
    always to its judge; ``warnings`` says which."""
    caller, live = asking
    players = PLAYERS if live.access.mode == "witnessed" else ()     # a player's device records its side
    Service.require(caller, "recorder", "judge", *players)
    seen = caller.view           # a player's device its own, a witnessed duel's recorder the table's (TABLE)
    view = live.view(seen)
    named = _shows(shows)
    # as far as its view may see: a player's of a judge's what-if branch stops where it left (``LiveDuel.branch_cut``)
    visible = live.visible(seen)
    with live.lock:                               # a copy of the board, as no append changes it
        count = min(len(view.steps), visible)
        state = view.state_after(count).copy() if count else None
    found = actions(state, card, named, service.store.cards) if state is not None else []
    if caller.role in PLAYERS and state is not None:     # only what this player may enter (its appends' rules)
        turn = state.turn_player if state.turn else None
        found = [a for a in found if not off_side(caller.role, a.event["kind"], a.event.get("player"), turn, True)
                 and not out_of_sight(caller.role, from_dict(a.event), state)]
    warns = live.access.warns or caller.role == "judge"
    return {"id": duel_id, "at": count - 1 if count else None, "card": card, "role": caller.role,
            "mode": live.access.mode, "warnings": warns,
            "actions": [action.to_dict(verdict=warns) for action in found]}


def _shows(text: str | None) -> dict[str, int]:
    """``p0.m3:12580477,p1.m0:14898066`` as a ``shows`` map, or 400 naming the pair that is not one."""
    named: dict[str, int] = {}
    for pair in filter(None, (text or "").split(",")):
        card_id, _, code = pair.partition(":")
        if not card_id or not code.isdigit() or not 0 < int(code) < 2 ** 32:
            raise HTTPError(400, say("shows is card:passcode pairs separated by commas, not {pair!r}",
                                     pair=pair), where="shows")
        named[card_id] = int(code)
    return named


@router.get("/duels/{duel_id}/events", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"application/x-ndjson": {}}}})
def events(duel_id: str, asking: DuelCaller, start: int = Query(0, alias="from", ge=0, le=10 ** 9),
           view: str | None = Query(None, pattern=VIEW)) -> Response:
    """The events from position ``from`` on, one JSON object a line, as the view has them."""
    caller, live = asking
    view = Service.view_for(caller, view)
    visible = live.visible(view)
    steps = live.view(view).steps[start:visible]
    body = "".join(event_json(step.to_dict(visible)) + "\n" for step in steps)
    return Response(body, media_type="application/x-ndjson")


@router.get("/duels/{duel_id}/replay.ygr", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"application/x-ygoreplay": {}}}})
def replay_file(duel_id: str, service: ServiceDep, asking: DuelCaller,
                view: str | None = Query(None, pattern=VIEW)) -> Response:
    """The duel as a signed ``.ygr`` file for the view (a delayed spectator's, cut at what it may see)."""
    caller, live = asking
    view = Service.view_for(caller, view)
    return _ygr(live.replay_file(view, service.store.key), duel_id, view)


@router.get("/duels/{duel_id}/follow", tags=["everyone"], response_class=EventStream,
            responses={200: {"content": {"text/event-stream": {}}}})
async def follow(duel_id: str, request: Request, service: ServiceDep, asking: DuelCaller,
                 start: int = Query(0, alias="from", ge=0, le=10 ** 9),
                 view: str | None = Query(None, pattern=VIEW),
                 format: str = Query("events", pattern="^(events|frames)$")) -> EventStream:
    """Server-Sent Events: one ``event`` per event of the view, its id the position; a reconnect
    with ``Last-Event-ID`` resumes after it. A spectator is held back by the duel's delay.
    ``format=frames`` sends what ``/frames`` gives for each (the web viewer follows so)."""
    caller, live = asking
    view = Service.view_for(caller, view)
    resume = request.headers.get("last-event-id")
    position = number(resume) + 1 if resume is not None and number(resume) is not None else start
    live_view = await asyncio.to_thread(live.view, view)
    # a match's player token seats its player by the names the duel's first event gives
    # (``access.seated``): followed before there is one, it is asked again once there is
    unseated = view in PLAYERS and not live.records and await asyncio.to_thread(live.match_id) is not None
    lease = service.streams.open(request, duel_id)
    connection = Connection()
    return EventStream(_stream(service, live, live_view, view, position, format == "frames", lease, unseated,
                               None if caller.role == "organiser" else lambda: _reads_on(service, request, duel_id, view),
                               caller.access_version, connection), connection=connection)


def _reads_on(service: Service, request: Request, duel_id: str, view: str) -> bool:
    """Whether a follower's token may still read ``view`` of the duel, asked as its request was
    (``Service.caller``) once the duel's access record changed: made private, or its spectator
    token dropped, by any process, its followers are cut off (a reconnection is refused)."""
    try:
        caller, _live = service.caller(request, duel_id)
    except HTTPError:
        return False
    return view in caller.views


#: The most bytes of events a follower sends at once (one event more than this at most): the
#: server's send waits for a reader that does not read only past its transport's buffer, so a
#: chunk of a whole duel would be held for it, a copy a follower.
CHUNK = 64 << 10


async def _stream(service: Service, live: LiveDuel, live_view: LiveView, view: str, position: int,
                  frames: bool, lease: _Lease, unseated: bool = False,
                  reads_on: Callable[[], bool] | None = None, seen_access: int = 0,
                  connection: Connection | None = None) -> AsyncIterator[bytes]:
    """A follower's events (or frames) as Server-Sent Events, from ``position`` on, as the view
    may see them, until the duel ends or the follower leaves (``EventStream`` closes it then).
    An ``unseated`` player's (a match's token before the duel named its players) ends, sending
    nothing, at the first event: its reconnection is seated by it (``access.seated``).
    The events before it joined its view's ``Feed`` it sends from the view's steps, up to
    ``CHUNK`` bytes a send (a reader that does not read holds one chunk in the server, not the
    duel); after, the same bytes as every other follower of the view, written by the feed to
    its ``connection`` (where the service's own protocol serves it: ``request_head.Outlet``) or
    handed to it to send (``fanout.sent``). One that falls ``QUEUED`` bytes behind is told so
    and ends (``fanout.behind_event``).
    ``reads_on`` (None for the organiser's): whether its token may still read, asked when the
    duel's access record changed since ``seen_access`` (the version its request was let in on,
    ``Caller.access_version``: a change another request read while this one connected was
    otherwise taken as the one it was let in on, and the follower never cut off); a change of
    that record, made by any process, wakes it (``Hub._access_heard``), and so does its
    keep-alive (the record read again then at most ``SETTINGS_SAFETY`` seconds on). Its feed
    writes to it only while the duel's access version is the one its token was last let in on
    and no change of the record is heard unread: its events are queued meanwhile, until it is
    asked again."""
    kept = service.hub.follow(live)              # a followed duel stays in memory
    feed: Feed | None = None
    follower: Follower | None = None
    try:
        if kept is not live:                     # evicted while it connected: the hub's own, which appends reach
            live, live_view = kept, await asyncio.to_thread(kept.view, view)
            seen_access = -1                     # its versions count another record's reads: ask at once
        while True:                              # fed as far as it sends itself, then joined at once
            feed = _feed_of(service, live, live_view, view, frames)
            if position >= feed.position or len(live_view.steps) >= feed.position:
                break
            await live.catch_up(view, feed.position)
        follower = feed.join(position)
        follower.seen = None if reads_on is None else seen_access
        if unseated and live.count:              # asked once joined: events landing before (in a thread) are
            yield RETRY                          # no seat's it may be sent from the view's steps
            return
        joined = follower.position
        chunk = RETRY
        if position < joined:                    # what came before it joined: from the view's steps
            steps, visible = live_view.steps, joined
            parts, size = [chunk], len(chunk)
            for i in range(position, joined):
                parts.append(_sse(steps[i], frames, visible))
                size += len(parts[-1])
                if size >= CHUNK and i + 1 < joined:
                    yield b"".join(parts)
                    parts, size = [], 0
            chunk = b"".join(parts)
            position = joined

        async def reads_still() -> bool:
            if reads_on is not None:
                if live.settings_due():
                    try:
                        await asyncio.to_thread(live.settings)
                    except StoreUnavailable:     # the database away: nothing changes the record meanwhile;
                        pass                     # read again at the next wake-up (it ended the follower)
                version = live.access_version
                if version != follower.seen:     # (its feed queues its events meanwhile)
                    if not await asyncio.to_thread(reads_on):
                        return False             # no end event: the duel has not ended for anyone else
                    follower.seen = version
            return not (unseated and live.count)     # seated by its reconnection: nothing of this seat's

        def partial(start: int, stop: int) -> list[bytes]:
            return [_sse(step, frames, stop) for step in live_view.steps[start:stop]]
        async for chunk in sent(follower, None if unseated else connection, chunk, position, partial,
                                check=reads_still):
            yield chunk
    finally:
        if feed is not None and follower is not None:
            feed.leave(follower)
        kept.followers -= 1
        lease.close()


def _feed_of(service: Service, live: LiveDuel, live_view: LiveView, view: str, frames: bool) -> Feed:
    """The feed every follower of this view (in this language, in this format) of ``live`` shares."""
    key = (live_view, frames)
    feed = live.feeds.get(key)
    if feed is None:
        def gone() -> None:
            if live.feeds.get(key) is feed:
                del live.feeds[key]

        def encode(start: int, stop: int) -> list[bytes]:
            return [_sse(step, frames, stop) for step in live_view.steps[start:stop]]
        feed = live.feeds[key] = Feed(service.hub, live, live_view, view, encode, KEEPALIVE, gone)
    return feed


def _sse(step: Step, frames: bool, visible: int) -> bytes:
    """A step as one Server-Sent Event: encoded once per view and format for all its followers
    (a marked step each time: its marks depend on what the reader may see)."""
    text = step.encoded.get(frames) if step.marks is None else None
    if text is None:
        data = step.frame(visible) if frames else step.to_dict(visible)
        text = (f"id: {step.position}\nevent: event\ndata: {event_json(data)}\n\n"
                .encode())
        if step.marks is None:
            step.encoded[frames] = text
    return text


@router.get("/duels/{duel_id}/frames", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"application/json": {}}}})
def frames(duel_id: str, request: Request, asking: DuelCaller, start: int = Query(0, alias="from", ge=0, le=10 ** 9),
           view: str | None = Query(None, pattern=VIEW)) -> Response:
    """What the web viewer draws, from position ``from`` on: each event's log line, the card
    facts it lets the view know, and the board after it (whole, or a patch of the one before;
    the first is always whole). With the views this token may switch to."""
    caller, live = asking
    view = Service.view_for(caller, view)
    visible = live.visible(view)
    if start > visible:
        raise HTTPError(404, say("this view may see events #0..#{last}; from is 0..{visible}",
                                 last=visible - 1, visible=visible))
    # a player, or the table's recorder, writes nothing into a judge's what-if its view is cut from
    # (``Records._not_in_what_if``)
    cut = (caller.role in PLAYERS or caller.view == TABLE) and live.branch_cut(caller.view) is not None

    def build() -> bytes:
        # the kinds this token may write (access.may_write): the recorder's page offers no other,
        # never a form whose entry is sure to be refused
        witnessed = live.access.mode == "witnessed"
        data = {"id": duel_id, "title": live.header.title, "view": view, "role": caller.role,
                # a judge's what-if names the duel it branched from (its page links back to it)
                **({"parent": live.header.parent} if live.header.parent else {}),
                "views": list(caller.views), "events": visible,
                "writes": [kind for kind, cls in EVENT_TYPES.items()
                           if cls.stream == "duel" and may_write(caller.role, kind, witnessed, bool(live.header.parent))
                           and not cut],
                # and whether it may call a judge (access.CALL: the page's one-tap call)
                "calls": may_call(caller.role, witnessed) and not cut,
                **({"broken": live.broken} if live.broken is not None and live.broken <= visible else {}),
                "ended": any(r.event.kind == "duel_ended" for r in live.records[:visible]),
                "delay": ({"events": live.access.delay_events, "seconds": live.access.delay_seconds}
                          if view == "spectator" else None),
                "origin": origin_of(live.header.source),
                "frames": live.view(view).frames(start, visible)}
        return event_json(data).encode()
    # made once per view, role, start and length: a crowd opening a shared link costs one
    packed = live.answer(("frames", view, caller.role, caller.released, cut, start, visible), build)
    headers = {"Cache-Control": "no-store", "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(packed, media_type="application/json", headers={**headers, "Content-Encoding": "gzip"})
    return Response(gzip.decompress(packed), media_type="application/json", headers=headers)


@router.post("/duels/{duel_id}/release", tags=["organiser"], dependencies=[Depends(organiser)])
def release(duel_id: str, service: ServiceDep) -> dict:
    """The organiser's call that the event has ended: what a duel under the ``event`` release
    policy hid is released to every reader once it has ended (at once, if it has)."""
    live = service._duel(duel_id)
    done = service.records.release(duel_id)
    live.settings_changed()
    return done.to_dict()


@router.post("/duels/{duel_id}/visibility", tags=["organiser"], dependencies=[Depends(organiser)],
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                 "type": "object", "required": ["visibility"],
                 "properties": {"visibility": {"enum": list(VISIBILITIES)}}}}}}})
async def set_visibility(duel_id: str, request: Request, service: ServiceDep) -> dict:
    """The organiser's change of who may find and read a duel (``Records.set_visibility``, as
    ``ygoreplay visibility``): public, unlisted (a spectator token issued, shown once, when it
    has none) or private; 409 for a duel narrower than its match, or a branch wider than the duel
    it branched from, nothing written (a duel narrowed narrows its branches with it)."""
    body = await _body_json(request)
    if not isinstance(body, dict) or set(body) != {"visibility"} or body["visibility"] not in VISIBILITIES:
        raise HTTPError(400, say("visibility is one of {choices}", choices=", ".join(VISIBILITIES)), where="visibility")
    live = service._duel(duel_id)
    done = await asyncio.to_thread(service.records.set_visibility, duel_id, body["visibility"])
    live.settings_changed()             # read again at its next reader, as every other worker reads it
    for branch in done.narrowed:        # and its branches narrowed with it, those this worker holds
        held = service.hub.duels.get(branch)
        if held is not None:
            held.settings_changed()
    return done.to_dict()


@router.get("/duels/{duel_id}/verify", tags=["everyone"])
def verify(duel_id: str, service: ServiceDep, asking: DuelCaller) -> dict:
    """The record checked end to end: chain, anchors, signature, snapshots; and not behind
    its witness (when the service has one)."""
    caller, live = asking
    return _verified(service, duel_id, caller, live, [])


@router.post("/duels/{duel_id}/verify", tags=["everyone"],
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                 "oneOf": [{"type": "object"}, {"type": "array", "items": {"type": "object"}, "maxItems": 1000}]}}}}})
async def verify_receipts(duel_id: str, request: Request, service: ServiceDep, asking: DuelCaller) -> dict:
    """As GET, and the store must still hold the head each receipt given names (a receipt
    or an array of them, as the writes answered): a store behind one is NOT ok."""
    caller, live = asking
    body = await _body_json(request)
    items = body if isinstance(body, list) else [body]
    if len(items) > 1000:
        raise HTTPError(400, say("at most 1000 receipts at once"), where="body")
    receipts = [_receipt(item, f"body[{i}]") for i, item in enumerate(items)]
    return await asyncio.to_thread(_verified, service, duel_id, caller, live, receipts)


def _verified(service: Service, duel_id: str, caller: Caller, live: LiveDuel, receipts: list[Receipt]) -> dict:
    """The verification kept for what the caller may see (never redone for an append past
    a delay), then the receipts and the witness."""
    visible = live.visible(caller.view)
    if any(r.duel != duel_id for r in receipts):
        raise HTTPError(400, say("a receipt given is not for duel {duel_id}", duel_id=duel_id), where="body")
    # held back (a delay, a judge's what-if): refused whatever the record holds past the view, which
    # a refusal made on it would tell (``LiveDuel.holds_back``)
    held_back = live.holds_back(caller.view)
    if held_back and any(r.events > visible for r in receipts):
        raise HTTPError(403, say("this view may see {visible} events: a receipt past them is checked with a token that "
                            "sees them (recorder, judge)", visible=visible), where="body")
    result, _witnessed = service.records.verify(duel_id, receipts, live.verified(visible, held_back), held_back)
    sealed = live.seals(min(visible, result.events)) if result.ok else None
    if visible < result.events:            # a delayed spectator: nothing that counts past its view
        trust = trust_of(result.ok, live.header.source, "its witness cannot be believed" if result.doubt else "")
        first = result.first_bad         # the break the service stopped at is its view's end, not past it
        bad = first if first is not None and (first < visible or first == live.broken == visible) else None
        return _with_seals({"id": duel_id, **trust, "events": visible, "first_bad_link": bad,
                            **beside("problem", "" if result.ok else N_("the record fails verification")),
                            "key": result.signer.text if result.signer else None}, sealed, caller)
    trust = trust_of(result.ok, live.header.source, result.doubt)
    return _with_seals({"id": duel_id, **trust, "events": result.events, "first_bad_link": result.first_bad,
                        **beside("problem", result.problem or result.doubt),
                        "key": result.signer.text if result.signer else None}, sealed, caller)


def _with_seals(verdict: dict, sealed: SealReport | None, caller: Caller) -> dict:
    """``seals``: what the players' seals hold (null when nobody sealed anything): the judge is
    told which cards and how an opening failed, anyone else how many; an opening that does not
    open its seal (LOG-11) makes the record NOT ok."""
    if sealed is None:
        return {**verdict, "seals": None}
    return {**verdict, "ok": verdict["ok"] and sealed.ok,
            "problem": verdict["problem"] or ("" if sealed.ok else "an opened card does not match what was sealed"),
            "seals": sealed.to_dict() if caller.view == "judge" else sealed.counts()}


@router.get("/duels/{duel_id}/receipt", tags=["judge"])
def receipt(service: ServiceDep, asking: DuelCaller) -> dict:
    """A signed receipt of the record's head now, for a judge's viewer to keep and show to
    ``POST /verify`` later: a store cut back since is caught. Only for the roles that read the
    whole record: the record's head hash is no secret to them, as it could be to a spectator, or
    to a witnessed duel's recorder (the table's view, ``access.TABLE``): each guess of a card a
    player's device entered hidden could be hashed until one met it."""
    caller, live = asking
    service.require(caller, "judge", *(() if caller.view == TABLE else ("recorder",)))
    if not live.verified(live.count).ok:
        raise HTTPError(409, say("duel {duel_id} fails verification (run verify): no receipt is signed for it",
                                 duel_id=live.id))
    return service.records.receipt(live.id).to_dict()


@router.get("/duels/{duel_id}/tree", tags=["everyone"])
def tree(duel_id: str, request: Request, service: ServiceDep, asking: DuelCaller) -> list[dict]:
    """The duel's family of branches, depth first, that this token may open (``Service.opens``,
    as each of them would be asked: a match's token opens its duels, not their branches)."""
    caller, _live = asking
    return family(service.records, duel_id, lambda member, access: service.opens(request, member, access),
                  None if caller.view == "judge" else lambda member: service.events_seen(member, caller.view))


@router.get("/duels/{duel_id}/diff", tags=["everyone"])
def diff(asking: DuelCaller, a: int = Query(ge=0, le=10 ** 9), b: int = Query(ge=0, le=10 ** 9),
         view: str | None = Query(None, pattern=VIEW)) -> dict:
    """How the board after event #a differs from the board after event #b, in this view."""
    from ..diff import diff_states
    caller, live = asking
    view = Service.view_for(caller, view)
    counts = [_count(live, view, n) for n in (a, b)]
    left, right = (live.view(view, max(counts)).state_after(n) for n in counts)
    return {"view": view, "differences": [{"place": p, "a": x, "b": y} for p, x, y in diff_states(left, right)]}


@router.get("/duels/{duel_id}/cards", tags=["everyone"])
def cards(asking: DuelCaller, view: str | None = Query(None, pattern=VIEW)) -> list[dict]:
    """The facts of every card this view may know so far (names, types, stats; no text)."""
    caller, live = asking
    view = Service.view_for(caller, view)
    steps = live.view(view).steps[:live.visible(view)]
    return [card for step in steps for card in step.cards]


__all__ = ["router"]
