"""Duels as a service process follows them: read once, then kept up to date, every view derived
as events arrive, and every follower woken when there is more.

``Hub`` holds the duels this process serves. A duel's record is read from the store once; after
that, new events are read as they are appended here, or as any other process appends them: one
subscription per process (``Store.subscribe``: PostgreSQL's LISTEN/NOTIFY, SQLite's
``data_version`` looked at on a timer and before a read) wakes the duels it names, never one per
follower. Each view (judge, p0, p1, spectator, and the table's of a witnessed
duel's recorder, ``access.TABLE``: the spectator's, ``views.redactor_of``) is redacted and
folded event by event (``views.Redactor`` and ``views.ViewReplay``), so a follower's next event
costs nothing more than sending it. A spectator view is held back by the duel's delay (events,
seconds); the table's is not (it sits at the table).
"""
from __future__ import annotations

import asyncio
import gzip
import logging
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import msgpack

from . import i18n
from .i18n import say
from .access import Access, filed_as
from .board import board
from .cache import Cache
from .card_names import card_name
from .cards import CardDB
from .chain import to_ms
from .log import Narrator
from .openings import SealReport
from .receipts import Witness
from .exchange import make_replay
from .replay_file import ReplayFile, dumps, referenced_codes
from .signing import OrganiserKey
from .rules import History
from .state import DuelState
from .errors import StoreUnavailable, VerificationError
from .library_search import branch_cut, released
from .errors import StoreError
from .store.reading import Store
from .store.records import Header, Record
from .store.verifying import Verification
from .trust import seals_of
from .views import VIEWS, ViewReplay, ViewStep, foldable, redactor_of, view_cards

#: A view's fold keeps its state every this many events, for reaching any position fast.
KEEP_EVERY = 64

#: A whole board every this many events of a view's frames; the others are patches.
KEYFRAME_EVERY = 64

#: Duels a process keeps in memory while nobody follows them (the least recently used go first).
IDLE_DUELS = 256

#: Seconds a duel a round's reading read stays held after that reading last read it (``Hub.get``'s ``held``).
HELD_FOR = 600.0

#: Duels held at most (the most recently read kept): a 1000-table round's reading reads ~750, and
#: two such rounds read at once fit. Unbounded, whoever read every round's page (anyone may) every
#: few minutes held every duel of every round in memory, past any eviction (issue 25, review19).
HELD_DUELS = 2048

#: A duel's verification is done again when what the view may see grew, or every this many seconds.
VERIFY_TTL = 10.0

#: The answers a process keeps for reuse, of every duel (the least recently used go first).
CACHE_ENTRIES = 4096
CACHE_BYTES = 256 << 20

#: How often a follower of a branch its parent still hides looks again (seconds).
BRANCH_POLL = 1.0
#: Seconds an ended duel's release, not yet released for good, is held before it is read again
#: (``LiveDuel.settings``): it follows the clock (a release at a time), its match's end and its
#: parent's release, which no notification of its own tells.
SETTINGS_READ = 1.0
#: Seconds a duel's access record (visibility, tokens, delay, release) is held at most before it is
#: read again though no change of it was heard (``Hub._heard``: every process's change of it is
#: notified as an append is, and read at once): a notification lost all the same.
SETTINGS_SAFETY = 30.0
#: How the store's heads name a stream's access record written (``store.records.ACCESS_TOPIC``).
ACCESS_SUFFIX = "/access"

#: What a kept verification counts as in the cache's bytes.
VERIFICATION_SIZE = 512

#: A follower's wake-up feeds its view in the event loop when it is at most this many events behind
#: and nobody else is feeding it; else in a thread, one for all the view's followers (``LiveDuel.catch_up``).
FEED_ON_LOOP = 4

#: Seconds before a listener the store refused (``Store.subscribe`` gave up) listens again.
LISTEN_AGAIN = 1.0

LOG = logging.getLogger("ygoreplay")

#: Threads that read another process's appends in (one duel each at a time): a burst of appends
#: of many duels is read side by side, not one after another behind a single listener.
READERS = 4


@dataclass
class Step:
    """One event as a view has it, ready to send: the event, its time and log line, what it
    shows and renames, the card facts it lets the view carry, and the board after it as a
    patch of the board before (``patch_of``) or whole (every ``KEYFRAME_EVERY``)."""

    position: int
    event: dict
    time: str
    line: str
    disclosures: list[list]
    renames: list[list]
    cards: list[dict]
    patch: dict
    board: dict | None = None
    #: A witnessed duel's marks of the event, as the view's own fold tells them (``History.marks``):
    #: kept up to date as later events confirm, dispute, rule on or strike it.
    marks: dict | None = None
    #: What the service made of it once for every reader (its Server-Sent Event as bytes, by
    #: format): a thousand followers of a view are sent one encoding. Unused while it has marks (their
    #: text depends on what each reader may see).
    encoded: dict = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self, upto: int | None = None) -> dict:
        """As sent; ``upto``: the events its reader may see (a delayed one learns no later mark)."""
        return {"position": self.position, "event": self.event, "time": self.time, "line": self.line,
                "disclosures": self.disclosures, "renames": self.renames, "cards": self.cards,
                **(marks_as_of(self.marks, upto) or {})}

    def frame(self, upto: int | None = None) -> dict:
        """What the web viewer draws of it: its log line and kind, the card facts it brings, the
        board (whole or a patch) and, for a rollback, the position it went back to."""
        out = {"i": self.position, "kind": self.event["kind"], "line": self.line, "time": self.time,
               "cards": self.cards}
        if self.board is not None:
            out["board"] = self.board
        else:
            out["patch"] = self.patch
        if self.event["kind"] in ("rolled_back", "entry_corrected"):
            out["to"] = self.event["to"]
        if self.event["kind"] == "judge_note" and self.event.get("category") == "call" and self.event.get("on") is None:
            out["call"] = True                   # a judge call: the viewer's timeline marks it
        if self.event["kind"] == "judge_note" and self.event.get("on") is not None:
            out["on"] = self.event["on"]         # a ruling on an entry (a call): the judge's page closes it
        if self.marks is not None:
            out.update(marks_as_of(self.marks, upto))
            out["flags"] = [{**flag, **i18n.message_dict(flag["message"])} for flag in out.get("flags") or ()]
        return out


def marks_as_of(marks: dict | None, upto: int | None) -> dict | None:
    """An event's marks as a reader who may see ``upto`` events knows them: what a later event
    said of it (confirmed, disputed, ruled, struck) is not told before that event is."""
    if marks is None or upto is None:
        return marks
    out = dict(marks)
    for key in ("struck", "confirmed"):
        if out[key] is not None and out[key] >= upto:
            out[key] = None
    for key in ("disputed", "ruled"):
        if out[key] is not None and out[key]["at"] >= upto:
            out[key] = None
    if marks["confirmed"] is not None and out["confirmed"] is None:
        out["unconfirmed"] = True
    if out["disputed"] is not None and out["ruled"] is None:
        out["disputed"] = {**out["disputed"], "open": True}
    return out


def patch_of(before: dict, after: dict) -> dict:
    """The parts of ``after`` that differ from ``before``: top-level keys and each player's
    (``"players.0.lp": 4000``); a pile that only grew gives the cards it gained
    (``"players.0.gy+": [...]``), so a long Graveyard is not sent again with every card."""
    out: dict[str, Any] = {}
    for key, value in after.items():
        if key == "players":
            for p, (old, new) in enumerate(zip(before["players"], value)):
                for name, part in new.items():
                    was = old.get(name)
                    if was == part:
                        continue
                    if isinstance(part, list) and isinstance(was, list) and was and part[:len(was)] == was:
                        out[f"players.{p}.{name}+"] = part[len(was):]
                    else:
                        out[f"players.{p}.{name}"] = part
        elif before.get(key) != value:
            out[key] = value
    return out


def _marked_by(history: History, position: int, event: Any) -> set[int]:
    """The events whose marks the event at ``position`` changed: itself, the entry it confirms,
    disputes or rules on, those a rollback or a correction undid."""
    marked = {position}
    on = getattr(event, "on", None)
    if isinstance(on, int):
        marked.add(on)
    if history.went_back(position) is not None:
        marked.update(pos for pos, by in history.reverted.items() if by == position)
    return marked


def _named(fact: dict, facts: Any) -> dict:
    """A card's facts as the viewer shows them: named in the view's language (``name_en`` keeps
    the English one when it differs)."""
    name = card_name(facts)
    shown = {**fact, "text": facts.describe(name)}
    if name != fact.get("name"):
        shown.update(name=name, name_en=fact.get("name"))
    return shown


class LiveView:
    """One view of a duel: its steps so far, its fold, and kept states to seek from.

    ``feed`` takes the full record's events one by one and redacts them for the view; a view
    file's events are the view's already (``of_file``)."""

    def __init__(self, view: str, cards: CardDB, secret: bytes, redact: bool = True) -> None:
        self.view = view
        self.full_cards = cards
        self.redactor = redactor_of(view, cards, secret) if redact and view != "judge" else None
        self.fold = ViewReplay([], CardDB(), [], deck_order_known=view == "judge")
        # its fold's history made now, with the view (a follower's connection makes it, in a
        # thread), not by its first event: that comes with every other duel's first, all at once
        self.fold._history = self.fold._new_history()
        self.steps: list[Step] = []
        self.codes: set[int] = set()
        self.kept: list[tuple[int, bytes]] = [(0, msgpack.packb(self.fold._history.state.to_data()))]
        self.last_board: dict | None = None
        self.narrator = Narrator()                 # remembers the chain from line to line
        self.language = i18n.current()             # its lines and labels are said in it, whoever feeds it

    @classmethod
    def of_file(cls, replay: ReplayFile) -> LiveView:
        """The steps of a replay file as its own view has them."""
        live = cls(replay.view, replay.cards, b"", redact=False)
        shown: dict[int, list[list]] = {}
        renamed: dict[int, list[list]] = {}
        for item in replay.disclosures:
            shown.setdefault(item[0], []).append(item)
        for item in replay.renames:
            renamed.setdefault(item[0], []).append(item)
        for index, event in enumerate(replay.events):
            live.take(index, replay.times[index],
                      ViewStep(index, event, shown.get(index, []), renamed.get(index, []), [], set()))
        return live

    def feed(self, record: Record) -> None:
        """The next event of the full record."""
        if self.redactor is None:
            step = ViewStep(record.position, record.event, [], [], [], set())
        else:
            step = self.redactor.feed(record.event)
        self.take(record.position, record.recorded, step)

    def take(self, position: int, time: str, step: ViewStep) -> None:
        """The next event as the view has it: folded, described, its board patched."""
        with i18n.using(self.language):
            self._take(position, time, step)

    def _take(self, position: int, time: str, step: ViewStep) -> None:
        if self.redactor is None:                  # the view may carry every card it holds
            new_codes = {c for c in self.full_cards if c not in self.codes}
        else:
            new_codes = {c for c in step.codes if c in self.full_cards and c not in self.codes}
        self.codes |= new_codes
        facts = view_cards(self.full_cards, new_codes)
        line = self.narrator.describe(self.fold.prepare(step, facts), step.event)
        state = self.fold.advance()
        after = board(state)
        whole = self.last_board is None or len(self.steps) % KEYFRAME_EVERY == 0
        self.steps.append(Step(position, step.event.to_dict(), time, line, step.disclosures, step.renames,
                               [_named(f, facts[f["code"]]) for f in facts.to_json_list()],
                               {} if whole else patch_of(self.last_board, after), after if whole else None))
        self.last_board = after
        history = self.fold._history
        if history is not None and state.witnessed:
            for marked in _marked_by(history, position, step.event):
                if marked < len(self.steps):
                    self.steps[marked].marks = history.marks(marked)
        if len(self.steps) % KEEP_EVERY == 0:
            self.kept.append((len(self.steps), msgpack.packb(state.to_data())))

    def frames(self, start: int = 0, stop: int | None = None) -> list[dict]:
        """Steps ``start`` to ``stop`` as the viewer's frames; the first always a whole board."""
        steps = self.steps[start:stop]
        out = [step.frame(stop) for step in steps]
        if out and "board" not in out[0]:
            out[0].pop("patch")
            out[0]["board"] = board(self.state_after(start + 1))
        return out

    def state_after(self, count: int) -> DuelState:
        """The view's state after its first ``count`` events, from the nearest kept state."""
        if count == len(self.steps) and self.fold._history is not None:
            return self.fold._history.state
        at, packed = max((k for k in self.kept if k[0] <= count), key=lambda k: k[0])
        start = DuelState.from_data(msgpack.unpackb(packed), self.fold.cards)
        history = History(self.fold.cards, audit=True, state=start, position=at, before=self.fold._show,
                          after=self.fold._settle, restore=self.state_after)
        for event in self.fold.events[at:count]:
            history.append(foldable(event))
        return history.state


class LiveDuel:
    """A duel this process serves: its header, access record, events so far and views.

    ``family`` gives the other duels as this process serves them (a branch asks its parent what
    a spectator may see there); ``cache`` keeps its answers (``Hub`` shares one among all)."""

    def __init__(self, store: Store, duel_id: str, family: Callable[[str], LiveDuel] | None = None,
                 cache: Cache | None = None, opened: tuple | None = None) -> None:
        self.id = duel_id
        self.store = store
        # header, access, cards and events in one read (``Store.opened``): every table's first
        # append loads it; ``opened`` gives them instead (a duel this process has just created)
        self.header: Header
        self.header, access, self.cards, new, broken = opened if opened is not None else store.opened(duel_id)
        self.access = Access.from_dict(access or {"visibility": "private"})
        self.match: str | None = None    # the match it is a duel of, once known
        self.records: list[Record] = []
        self.views: dict[str, LiveView] = {}
        self.lock = threading.Lock()
        self.spectating = threading.Lock()   # feeds the spectator's view, apart from the others
        self._feeding: dict[str, asyncio.Future] = {}    # a view's catch-up in a thread (``catch_up``)
        self.version = 0
        self.writing = 0                 # appends of this process under way (they hand their records in)
        self.followers = 0               # open streams of this duel
        self.feeds: dict[tuple, Any] = {}    # (view, format) -> the ``service.fanout.Feed`` its followers share
        self.behind = 0                  # events another process stored that nobody here has asked for yet
        self.ended_at: int | None = None
        self.broken = broken             # the first stored event that does not follow the chain
        self._cards_at = len(new)        # the count its card facts were read (and vouched for) at
        # the access record and release: read when first asked, but the access of a duel this
        # process has just created (``opened``, as written), read again when a change of it is
        # heard (``settings_changed``), or ``SETTINGS_SAFETY`` seconds on
        self._access_read = time.monotonic() if opened is not None else float("-inf")
        self.access_version = 0          # changes of its access record read (``settings``)
        self._released = False
        self._release_read = False       # read since it ended (``released``)
        self._heard = 0                  # changes of its access record heard (``settings_changed``)
        self._for_good = False           # released, and nothing can take it back (``released``)
        self.family = family or (lambda other: LiveDuel(store, other))
        self.cache = cache if cache is not None else Cache(CACHE_ENTRIES, CACHE_BYTES)
        if new:
            self._take_in(new)

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    def released(self, now: float | None = None, read: bool = True) -> bool:
        """Whether what the duel hid is released to every caller now (``released``): asked again
        with its access record (``settings``) until it is released for good. The organiser may
        release it from any process; and a release under a policy the duel does not hold for good
        is taken back by a link: one of no match with no policy of its own is released at its end
        (``end``), and linked into a match after, from any process, it follows the match's (held
        until the match releases it); a branch follows its parent's. Kept once given, a worker
        went on showing the judge's view of a match's game (both hands, both Deck orders) to every
        token of it while every other worker refused it. ``read`` False: as held (``settings``)."""
        if not self.ended:
            return False
        self.settings(now, read)
        return self._released

    def settings_due(self) -> bool:
        """Whether ``settings`` would read the store now: a change of its access record was
        heard (``settings_changed``), ``SETTINGS_SAFETY`` seconds passed, or it has ended and its
        release, not yet for good, was not read since or ``SETTINGS_READ`` seconds ago. A request
        of a duel held here reads it in a thread then, never on the event loop (``core.duel_caller``)."""
        since = time.monotonic() - self._access_read
        return since >= SETTINGS_SAFETY or (self.ended and not self._for_good and (
            not self._release_read or since >= SETTINGS_READ))

    def settings(self, now: float | None = None, read: bool = True) -> Access:
        """Its access record and release as stored, read again when due (``settings_due``): the
        one way a change of who may read it (``Records.set_visibility``, its spectator token
        dropped or issued) or of what it hides (``Records.release``) made by any process (another
        worker, the command line beside a served store) reaches this one. The record held in
        memory only, a duel made private went on being served to the public, and to its dropped
        spectator token, by every other worker until it was evicted. ``read`` False: as held,
        even when due (the event loop, which never waits for the store). ``access_version``
        counts the changes: a follower asks again whether it may read on."""
        if not read or not self.settings_due():
            return self.access
        # Marked read once read, not before: meanwhile it stays due, so a second reader (another
        # follower's task, the feed's ``version``) waits on a read of its own rather than taking
        # the record held as the one read (a follower of a duel just made private was sent its
        # next events); a change heard during the read leaves it due; a read that fails, too.
        started, heard = time.monotonic(), self._heard
        stored = Access.from_dict(self.store.attachment(self.id, "access") or {"visibility": "private"})
        if stored.to_dict() != self.access.to_dict():
            self.access = stored
            self.access_version += 1
        if self._heard == heard:
            self._access_read = started
        if self.ended and not self._for_good:
            self._release_read = True
            self._released = released(self.store, self.id, now)
            # its own policy, or its match's (a link is for good), and no parent's to follow
            self._for_good = self._released and not self.header.parent and (
                self.access.release is not None or self.access.event is not None or self.match_id() is not None)
        return self.access

    def settings_changed(self) -> None:
        """Its access settings (or its match's) were written, here or by another process (heard:
        ``Hub._heard``): read them again when next asked."""
        self._heard += 1
        self._access_read = float("-inf")

    def seats(self) -> list[str] | None:
        """The players its ``duel_started`` names, seat by seat (None before it has one)."""
        first = self.records[0].event if self.records else None
        return list(first.players) if first is not None and first.kind == "duel_started" else None

    def match_id(self) -> str | None:
        """The match it is a duel of, read until it has one (once linked, it is that match's for good)."""
        if self.match is None:
            self.match = self.store.match_of(self.id)
        return self.match

    @property
    def count(self) -> int:
        return len(self.records)

    def refresh(self, written: list[Record] | None = None) -> bool:
        """Take in what was appended since (``written``, when this process wrote it and nothing
        came between; else read from the store); whether anything was new."""
        with self.lock:
            if written and written[-1].position < len(self.records):
                return False                         # taken in already (the listener was quicker)
            if written and written[0].position == len(self.records):
                new = written
            else:
                prev = self.records[-1].hash if self.records else self.header.root
                # nothing is shown from an altered event on (verify says why); put back, it goes on
                new, self.broken = self.store.chained_after(self.id, len(self.records), prev)
            return bool(new) and self._take_in(new)

    def _take_in(self, new: list[Record]) -> bool:
        """Add ``new``, the events that follow those held (under ``lock``, or while being made);
        whether they were (not when the card facts they name were altered in the database)."""
        named = {c for r in new for c in _codes(r)}
        upto = new[-1].position + 1
        if upto > self._cards_at and not all(c in self.cards for c in named):
            # those this process's append just wrote are held; other cards (another process's)
            # are read, as the anchor at ``upto`` signed them
            held = self.store.held_cards(self.id)
            if held is not None and all(c in held for c in named):
                self.cards = held
            else:
                try:
                    self.cards = self.store.vouched_cards(self.id, upto)
                except VerificationError:
                    self.broken = new[0].position      # nothing is shown from here on; verify says why
                    return False
            self._cards_at = upto
            for live in list(self.views.values()):     # a spectator's may be added meanwhile
                self._with_cards(live)
        self.records += new
        if self.ended_at is None:
            self.ended_at = next((r.position for r in new if r.event.kind == "duel_ended"), None)
        for live in list(self.views.values()):
            if not self.fed_when_asked(live.view):     # such a view takes events as it may see them
                for record in new:
                    live.feed(record)
        self.version += 1
        return True

    def fed_when_asked(self, name: str) -> bool:
        """Whether view ``name`` is fed only the events it may see, when it is asked for
        (``view``), and never with each append: a spectator's (its delay), and every view but the
        judge's of a branch (its parent's cut, ``branch_cut``). A view's steps say what later
        events it holds said of them (a witnessed duel's marks: struck, confirmed, disputed, ruled,
        reverted); fed past the cut, a player's steps of a judge's what-if told him where its
        rollback went back to (ZONE-14)."""
        return name == "spectator" or (bool(self.header.parent) and name != "judge")

    def view(self, name: str, upto: int | None = None) -> LiveView:
        """The view, with every event it may see now (or ``upto`` events). A spectator's is fed
        only what it may see, under a lock of its own: no work on an event past its delay is
        done for it, and it never waits for the other views to take an append in; a player's of
        a branch likewise (``fed_when_asked``), under the duel's lock."""
        if name == "spectator":
            with self.spectating:
                return self._fed(name, self.visible(name) if upto is None else upto)
        if not self.fed_when_asked(name):          # fed every event as it comes (``_take_in``)
            with self.lock:
                return self._fed(name, len(self.records))
        count = self.visible(name) if upto is None else upto
        with self.lock:
            return self._fed(name, count)

    async def catch_up(self, name: str, upto: int) -> None:
        """Feed the view ``name`` up to ``upto`` events, from the event loop, without ever blocking
        it: a step or a few are fed right there when nobody else is feeding the view (a duel's
        first step, the costliest, is 1-3 ms); a longer catch-up (a delay's events released at
        the duel's end), or one while a thread holds the view's lock (the duel's append taken in
        around a store read, a new follower's catch-up, a page's request), is waited for in a
        thread, while the loop goes on sending to every other follower. One such thread a view at
        a time: a thousand followers of it wait for the same one."""
        key = _view_key(name)
        live = self.views.get(key)
        while live is None or len(live.steps) < upto:
            if live is not None and upto - len(live.steps) <= FEED_ON_LOOP and self._view_now(name, upto):
                return
            feeding = self._feeding.get(key)
            if feeding is None or feeding.done():
                feeding = self._feeding[key] = asyncio.ensure_future(asyncio.to_thread(self.view, name, upto))
            live = await asyncio.shield(feeding)    # a follower that leaves does not stop it for the others

    def _view_now(self, name: str, upto: int) -> bool:
        """``view`` if its lock is free now (whether it was): never waits for it."""
        lock = self.spectating if name == "spectator" else self.lock
        if not lock.acquire(blocking=False):
            return False
        try:
            self._fed(name, upto if self.fed_when_asked(name) else len(self.records))
        finally:
            lock.release()
        return True

    def _fed(self, name: str, count: int) -> LiveView:
        key = _view_key(name)
        live = self.views.get(key)
        if live is None:
            live = self.views.setdefault(key, LiveView(name, self.cards, self.header.secret))
        self._with_cards(live)
        for record in self.records[len(live.steps):count]:
            live.feed(record)
        return live

    def _with_cards(self, live: LiveView) -> None:
        """The view given the duel's card facts, as they grow with the cards recorded."""
        if live.full_cards is not self.cards:
            live.full_cards = self.cards
            if live.redactor is not None:
                live.redactor.history.cards = live.redactor.history.state.db = self.cards

    def visible(self, view: str, now: float | None = None) -> int:
        """How many events ``view`` may see now: all but a spectator's delay, until the duel
        ends (then there is nothing left to keep from the players). A spectator sees nothing of
        a branch until its parent shows it where the branch left (its first events are the
        parent's: a branch played to its end must not release them); no view but the judge's
        sees a branch's own events before its parent released what it hid (``branch_cut``)."""
        count = self.count
        if view == "judge":
            return count
        cut = self.branch_cut(view, now)
        if cut is not None:
            count = min(count, cut)
        if view != "spectator":
            return count
        if self.hidden_by_parent(now):
            return 0
        if self.ended:
            return count
        count = max(0, min(count, self.count - self.access.delay_events))
        if self.access.delay_seconds > 0:
            cutoff = (time.time() if now is None else now) * 1000 - self.access.delay_seconds * 1000
            while count and to_ms(self.records[count - 1].recorded) > cutoff:
                count -= 1
        return count

    def holds_back(self, view: str, now: float | None = None) -> bool:
        """Whether ``view`` may be shown fewer events than the record holds now: a spectator's
        while a delay holds it back (until the duel ends) or while its branch is hidden by its
        parent, any view but the judge's of a branch its parent cuts (``branch_cut``). Decided by
        the view and the settings alone, never by how many events there are: a door that answers
        on whether the view has seen the whole record (a stream's end, a receipt past the view
        refused) would otherwise tell a held-back reader whether, and how far, the record goes on
        past what it sees (a judge's what-if's length and end, when a delayed table last entered)."""
        if view == "judge":
            return False
        if self.branch_cut(view, now) is not None:
            return True
        return view == "spectator" and (self.hidden_by_parent(now) or (not self.ended and self.access.delayed))

    def branch_cut(self, view: str, now: float | None = None) -> int | None:
        """How many of a branch's events ``view`` may see while its parent has not released what
        it hid (None: no cut, not a branch or its parent released): ``library_search.branch_cut``,
        on the parent as this process follows it (a duel still going on, or one that keeps its
        hidden cards: release ``never``, an event's duel before the event ends)."""
        if not self.header.parent:
            return None
        try:
            parent = self.family(self.header.parent)
        except (StoreError, VerificationError):       # a parent not there, or altered: nothing of it
            return 0
        if parent.released(now):
            return None
        return branch_cut(self.header.branch_at or 0, False, parent.visible(view, now))

    def hidden_by_parent(self, now: float | None = None) -> bool:
        """Whether this is a branch whose parent does not yet show a spectator where it left
        (its header, even its default title, says where: it is no duel of a spectator's yet)."""
        if not self.header.parent:
            return False
        try:
            parent = self.family(self.header.parent)
        except (StoreError, VerificationError):       # a parent not there, or altered: hidden
            return True
        return parent.visible("spectator", now) < (self.header.branch_at or 0)

    def next_release(self, view: str, now: float | None = None) -> float | None:
        """When the next held-back event becomes visible to ``view`` (seconds from ``now``), if
        ever. Give the ``now`` that ``visible`` was asked with: read twice, the clock could pass
        the release between the two and the follower would wait for nothing. A branch its
        parent hides, or cuts (``branch_cut``), is looked at again every ``BRANCH_POLL`` seconds
        (its parent's appends and release wake only the parent's followers)."""
        if view == "spectator" and self.hidden_by_parent(now):
            return BRANCH_POLL
        cut = self.branch_cut(view, now) if view != "judge" else None
        if cut is not None and cut < self.count:     # until its parent releases what it hid
            return BRANCH_POLL
        if view != "spectator" or self.access.delay_seconds <= 0:
            return None
        now = time.time() if now is None else now
        count = self.visible(view, now)
        if count >= max(0, self.count - self.access.delay_events):
            return None
        due = to_ms(self.records[count].recorded) / 1000 + self.access.delay_seconds
        return max(0.0, due - now)

    def flags(self, view: str, start: int, stop: int) -> list[dict]:
        """The flags of events ``start`` to ``stop`` (excluded) as ``view``'s own fold finds them
        (its steps' marks, as its frames give them): a player's device is answered no flag of the
        full record's, which may name a card it does not see."""
        steps = self.view(view).steps[start:stop]
        with i18n.naming(self.seats() or ()):       # a sentence no longer kept by ``say``: its players whole
            return [{"index": step.position, **flag, **i18n.message_dict(flag["message"])}
                    for step in steps for flag in (step.marks or {}).get("flags") or ()]

    def names(self, view: str, count: int) -> dict[str, str] | None:
        """A player's view's (or the table's, ``access.TABLE``) name of each record id after the
        duel's first ``count`` events, as the view this process keeps fed has them
        (``Redactor.names``: what its frames and ``/actions`` name cards by, so what its device,
        or the table's recorder, writes): a copy, read under the lock. None
        when this process holds another number of events (the caller derives them)."""
        if len(self.records) < count:
            self.refresh()
        with self.lock:
            if len(self.records) != count:
                return None
            redactor = self._fed(view, count).redactor
            return dict(redactor.names.of) if redactor is not None else None

    def frame(self, view: str, count: int) -> dict[str, Any]:
        return board(self.view(view).state_after(count))

    def answer(self, key: tuple, build: Callable[[], bytes]) -> bytes:
        """A response body made once and kept gzipped (a duel's frames shrink about 25 times)
        in the bounded cache; ``key`` holds the number of events its reader may see."""
        return self.cache.get((self.id, "answer", i18n.current(), *key), lambda: gzip.compress(build(), 5))

    def verified(self, seen: int, held_back: bool = False) -> Verification:
        """The record checked end to end (``Store.verify``), for a reader that may see ``seen``
        events: again once that grew, or every ``VERIFY_TTL`` seconds (on the clock, never on
        an append past what the reader may see), so a crowd asking at once costs one. A reader
        ``held_back`` (``holds_back``: a delay, a judge's what-if) gets the verification of its
        ``seen`` events, which reads nothing past them: neither its answer nor its time depends
        on what is held back. Decided by the view, not by the events this process holds: one
        behind the store (a wake-up missed, another worker's append not taken in yet) read the
        whole record for such a reader when it held just ``seen``, so a what-if altered past a
        player's view failed his verification, and his file, on that worker only."""
        period = int(time.monotonic() // VERIFY_TTL)
        upto = seen if held_back else None
        return self.cache.get((self.id, "verified", seen, held_back, period),
                              lambda: self.store.verify(self.id, upto), lambda _result: VERIFICATION_SIZE)

    def seals(self, seen: int) -> SealReport | None:
        """What the seals among the first ``seen`` events hold (``trust.seals_of``), kept like
        the verification: nothing past what the reader may see is read."""
        records = self.records[:seen]
        return self.cache.get((self.id, "seals", seen, self.version),
                              lambda: seals_of([r.event for r in records], self.cards), lambda _report: 1024)

    def replay_file(self, view: str, key: OrganiserKey) -> bytes:
        """The signed ``.ygr`` file of what ``view`` may see, derived from the verified record;
        made once per view and number of events it may see. The table's (``access.TABLE``) is a
        spectator's file of every event the table has seen (a file's names are a view's own)."""
        count = self.visible(view)
        return self.cache.get((self.id, "file", view, count), lambda: self._replay_file(view, count, key))

    def _replay_file(self, view: str, count: int, key: OrganiserKey) -> bytes:
        """Made from the events ``view`` may see only (and the verification kept for it), so
        neither its making nor its time depends on the events past a delay."""
        if not self.verified(count, self.holds_back(view)).ok:
            raise VerificationError(say("duel {id} fails verification (run verify): nothing was derived from it",
                                        id=self.id))
        records, header = self.records[:count], self.header
        view = filed_as(view)
        match = {"duel": self.id, "title": header.title}
        if header.parent:
            match.update(parent=header.parent, branch_at=header.branch_at)
        replay = make_replay([r.event for r in records], [r.recorded for r in records], self.cards, view,
                             header.root, header.secret, match, header.source, header.created,
                             chain=[r.hash for r in records])
        return dumps(replay, key)


def _view_key(name: str) -> str:
    """A view per language asked for: its lines are said once, in that language."""
    return name if i18n.current() == i18n.DEFAULT else f"{name} {i18n.current()}"


def _codes(record: Record) -> set[int]:
    return referenced_codes([record.event])


class Hub:
    """The duels this process follows, and the wake-ups of their followers.

    ``changed`` may be called from any thread (an append handled here, the PostgreSQL listener);
    followers wait on ``wait`` in the event loop."""

    def __init__(self, store: Store, witness: Witness | None = None) -> None:
        self.store = store
        self.witness = witness           # every write's signed head: a match's (``match.commands.record``) too
        self.duels: OrderedDict[str, LiveDuel] = OrderedDict()
        self.cache = Cache(CACHE_ENTRIES, CACHE_BYTES)
        self.matches: OrderedDict[str, Any] = OrderedDict()     # id -> match.live.LiveMatch
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiters: dict[str, set[asyncio.Future]] = {}
        self.generation = 0              # counts the changes taken in: what is made of many streams is made again
        self._listener: threading.Thread | None = None
        self._subscription = None
        self._readers: ThreadPoolExecutor | None = None
        self._reading: dict[str, bool] = {}   # duels being read in; True: notified again meanwhile
        self._notified: dict[str, int] = {}   # the length each duel being read in was last notified at
        self._stopping = threading.Event()
        # each duel a reading that reads many at once read (a round's: its tables' duels), with when
        # it last read it, the least recently read first: a duel held is not evicted as idle (``_evict``)
        self._held: OrderedDict[str, float] = OrderedDict()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        after = self.store.last_notification()
        self._subscription = self.store.subscribe(after)
        self._readers = ThreadPoolExecutor(READERS, thread_name_prefix="ygoreplay-read")
        self._listener = threading.Thread(target=self._listen, name="ygoreplay-listen", daemon=True)
        self._listener.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._subscription is not None:
            self._subscription.stop()
        if self._listener is not None:
            self._listener.join(5)
        if self._readers is not None:
            self._readers.shutdown(wait=True, cancel_futures=True)

    def _listen(self) -> None:
        """Hand the store's notifications on until ``stop``. The store away for longer than the
        subscription tries again (``_Heads.RETRIES``) ended this thread: no append of another
        process reached a follower here any more, silently, until the worker was restarted. Now
        it is said on stderr and listened for again; what was stored meanwhile is read then."""
        with self._subscription as heads:
            while not self._stopping.is_set():
                try:
                    for duel_id, count in heads:
                        self._heard(duel_id, count)
                    return
                except Exception as exc:       # the store refused (or any fault): never stop listening
                    LOG.warning("ygoreplay: the store's notifications are lost (%s); listening again in %s s",
                                " ".join(str(exc).split()) or type(exc).__name__, LISTEN_AGAIN)
                    self.settings_lost()     # a change of an access record may have gone unheard
                    self._stopping.wait(LISTEN_AGAIN)

    def _heard(self, duel_id: str, count: int) -> None:
        """A notification that ``duel_id`` has ``count`` events stored (or, ``<stream>/access``,
        that a stream's access record was written: ``_access_heard``)."""
        if duel_id.endswith(ACCESS_SUFFIX):
            self._access_heard(duel_id[:-len(ACCESS_SUFFIX)])
            return
        live = self.duels.get(duel_id)
        if live is not None and live.count < count:
            # Read at once only for the duel's followers here and those waiting on it (a
            # round's stream waits on its tables' duels without following them: it moved only
            # at its ``LOOK_AGAIN``), and not while this process writes it (its append hands its
            # own records in, and the other's may come after them: the followers' next wake-up
            # reads those); else when next asked (``get``, ``wait``): with two workers, each
            # read every append the other made.
            if (live.followers or duel_id in self._waiters) and not live.writing:
                self._read_soon(duel_id, count)
            else:
                live.behind = max(live.behind, count)
        elif duel_id in self.matches:
            if self.matches[duel_id].count < count:
                self._read_soon(duel_id, count)
        elif live is None and duel_id in self._waiters and self._loop is not None:
            # waited on, not held here: a round's stream waits on its tables' matches, which its
            # status reads from the store (it moved only at its ``LOOK_AGAIN``): made again, woken
            self.generation += 1
            self._loop.call_soon_threadsafe(self._wake, duel_id)

    def _access_heard(self, stream_id: str) -> None:
        """A stream's access record was written, by this process or any other (the store's heads
        tell it: ``ACCESS_TOPIC``): the duel held here, and those held of the match it is, read
        theirs again when next asked (``LiveDuel.settings_due``; in a thread, never on the event
        loop), and their followers wake to ask whether they may read on. What the notification
        says is never taken as the record (any role that may connect may NOTIFY, test_attack_25bh):
        it only makes the record read. The once-a-second read of every held duel's record, on
        the event loop (the paced p99 84 → 262 ms), and every follower's wake-up a second to look
        at it, are gone: a change reaches a worker as fast as an append does."""
        with self._lock:
            live = self.duels.get(stream_id)
            if live is not None:
                self._settings_changed([live])
            elif stream_id in self.matches:  # a match held here: the duels held of it
                self._settings_changed([each for each in self.duels.values() if each.match == stream_id])

    def _settings_changed(self, changed: list[LiveDuel]) -> None:
        for live in changed:
            live.settings_changed()
            if live.followers and self._loop is not None:
                try:
                    self._loop.call_soon_threadsafe(self._wake_followers, live)
                except RuntimeError:     # the loop has closed: nobody follows any more
                    pass

    @staticmethod
    def _wake_followers(live: LiveDuel) -> None:
        """Wake every follower of ``live`` (its feeds', ``service.fanout``): each asks whether it
        may read on."""
        for feed in list(live.feeds.values()):
            for follower in list(feed.followers):
                follower.wake()

    def settings_lost(self) -> None:
        """The store's notifications were lost for a while (its listener failed): every duel held
        reads its access record again when next asked, and its followers wake to ask."""
        with self._lock:
            self._settings_changed(list(self.duels.values()))

    def _read_soon(self, duel_id: str, count: int) -> None:
        """Take in what another process stored of ``duel_id`` in a reader thread: the listener
        only hands notifications on (it read each duel itself, one after another: the last duel
        of a burst of the other process's appends waited for every read before it, 80–600 ms
        on the shared 2 cores). One read of a duel at a time; a notification meanwhile reads it
        once more after."""
        with self._lock:
            self._notified[duel_id] = max(self._notified.get(duel_id, 0), count)
            if duel_id in self._reading:
                self._reading[duel_id] = True
                return
            self._reading[duel_id] = False
        assert self._readers is not None
        try:
            self._readers.submit(self._read, duel_id)
        except RuntimeError:             # stopping: nothing is read any more
            pass

    def _read(self, duel_id: str) -> None:
        """Read ``duel_id`` in until no notification came meanwhile. A read that failed (the
        store's error, which ``changed`` passes over, or any other) leaves the duel or match
        ``behind`` what was notified, so its followers' next wake-up reads it (``Alarm.wait``):
        else its last events, its end among them, reached them only with a further append."""
        try:
            while True:
                self.changed(duel_id)
                with self._lock:
                    if not self._reading[duel_id]:
                        break
                    self._reading[duel_id] = False
        finally:
            with self._lock:
                self._reading.pop(duel_id, None)
                count = self._notified.pop(duel_id, 0)
                live = self.duels.get(duel_id) or self.matches.get(duel_id)
            if live is not None and live.count < count:
                live.behind = max(live.behind, count)

    def get(self, duel_id: str, held: bool = False) -> LiveDuel:
        """The duel as this process serves it. ``held``: read by a reading that reads many duels
        each time it reads (a round's), which holds it as long as it is read within ``HELD_FOR``
        seconds (``HELD_DUELS`` at most): a 500-table round read ~375 duels, past ``IDLE_DUELS``,
        and its own reading evicted the duels it read next, so every reading opened ~120 of them
        again (~1 ms each: most of a change's CPU; issue 25)."""
        stored = self._look(duel_id)
        with self._lock:
            if held:
                self._hold(duel_id)
            live = self.duels.get(duel_id)
            if live is not None:
                self.duels.move_to_end(duel_id)
        if live is not None:
            if max(live.behind, stored) > live.count:   # another process stored more: take it in now
                live.behind = 0          # cleared first: what is stored by the read below is read there
                self.changed(duel_id)
            return live
        live = LiveDuel(self.store, duel_id, self.get, self.cache)
        with self._lock:
            live = self.duels.setdefault(duel_id, live)
            self._evict()
        return live

    def created(self, duel_id: str) -> None:
        """Hold a duel this process has just created, as its store holds it (``Store.created``):
        every table's first append read it back and checked its anchor (twice) in the
        burst of a room's first appends (issue 25). Held before its id is answered, so another
        process's appends to it, made with its tokens, are notified to it here (``_heard``)
        and read when it is next asked for; evicted as any other duel."""
        opened = self.store.created(duel_id)
        if opened is None:
            return
        live = LiveDuel(self.store, duel_id, self.get, self.cache, opened)
        with self._lock:
            self.duels.setdefault(duel_id, live)
            self._evict()

    def follow(self, live: Any) -> Any:
        """Count one more follower of ``live``, a duel or a match (which its request got before
        its view was made or its stream began) on the one this hub keeps: an idle one may have
        been evicted meanwhile, and an append reaches the kept one only (a follower counted on
        the evicted one waited for ever). Put back when none was made since, marked behind: what
        was stored meanwhile is read at its follower's next wake-up (``Alarm.wait``)."""
        kept_in = self.duels if isinstance(live, LiveDuel) else self.matches
        with self._lock:
            kept = kept_in.get(live.id)
            if kept is None:
                kept = kept_in[live.id] = live
                live.behind = max(live.behind, live.count + 1)
            kept_in.move_to_end(live.id)
            kept.followers += 1
        return kept

    def match(self, match_id: str) -> Any:
        """The match ``match_id`` as this process serves it (a ``match.live.LiveMatch``)."""
        from .match.live import LiveMatch
        stored = self._look(match_id)
        with self._lock:
            live = self.matches.get(match_id)
            if live is not None:
                self.matches.move_to_end(match_id)
        if live is not None:
            if stored > live.count:      # another process stored more: take it in now
                self.changed(match_id)
            return live
        live = LiveMatch(self.store, match_id)
        with self._lock:
            live = self.matches.setdefault(match_id, live)
            idle = [m for m, each in self.matches.items() if not each.followers]
            for old in idle[:max(0, len(idle) - IDLE_DUELS)]:
                del self.matches[old]
        return live

    def _look(self, stream_id: str) -> int:
        """What other processes committed, looked at now (the subscription's ``look``: SQLite's
        ``data_version``, one statement) and handed on as the listener hands it (``_heard``), so
        that a read answers no count another process has passed; the count ``stream_id`` is known
        stored at (a read in of it under way included: its reader thread may not have taken it in
        yet). None on PostgreSQL, whose NOTIFY comes by itself (0: nothing more to read now); a
        store that cannot be looked at now is read as it is held (the listener tries again)."""
        if self._subscription is None:
            return 0
        try:
            heads = self._subscription.look()
        except StoreUnavailable:
            heads = []
        if heads is None:
            return 0
        for each, count in heads:
            self._heard(each, count)
        with self._lock:
            return max([self._notified.get(stream_id, 0), *(count for each, count in heads if each == stream_id)])

    def _hold(self, duel_id: str) -> None:
        """Hold ``duel_id``, read now; the least recently read let go past ``HELD_DUELS`` (under ``_lock``)."""
        self._held[duel_id] = time.monotonic()
        self._held.move_to_end(duel_id)
        while len(self._held) > HELD_DUELS:
            self._held.popitem(last=False)

    def _let_go(self) -> None:
        """Let go the duels no reading read within ``HELD_FOR`` seconds: a finished game's duel a
        round's page reads no more, a round no one reads (under ``_lock``)."""
        now = time.monotonic()
        while self._held and now - next(iter(self._held.values())) > HELD_FOR:
            self._held.popitem(last=False)

    def _evict(self) -> None:
        """Forget the least recently used duels nobody follows, writes or holds, past ``IDLE_DUELS``
        (under ``_lock``)."""
        idle = [d for d, live in self.duels.items() if not live.followers and not live.writing]
        if len(idle) > IDLE_DUELS:
            self._let_go()                # a reading long past holds nothing: its duels are idle again
            idle = [d for d in idle if d not in self._held]
        for duel_id in idle[:max(0, len(idle) - IDLE_DUELS)]:
            del self.duels[duel_id]

    def appending(self, duel_id: str, append) -> list[Record]:
        """Run an append of this process (``append()`` returns its records) and take them in."""
        live = self.get(duel_id)
        with live.lock:
            live.writing += 1
        written: list[Record] | None = None
        try:
            written = append()
        finally:
            with live.lock:
                live.writing -= 1
            if written != []:            # [] wrote nothing (a set-up sent again): nothing to take in
                self.changed(duel_id, written or None)
        return written

    def changed(self, duel_id: str, written: list[Record] | None = None) -> None:
        """New events may be stored (``written`` by this process): take them in and wake the
        duel's followers."""
        live = self.duels.get(duel_id) or self.matches.get(duel_id)
        if live is None:
            return
        try:
            if not live.refresh(written):
                return
        except (StoreError, StoreUnavailable):    # (after a failed append: never in place of its error)
            return
        self.generation += 1
        # Only a duel someone waits on wakes the loop: a wake-up from a thread is a write to the
        # loop's pipe and a turn of the loop, on every append (issue 25). Every follower registers
        # (``Alarm.arm``) before it reads the duel, so one that registers after this look reads
        # what ``refresh`` took in.
        if self._loop is not None and duel_id in self._waiters:
            self._loop.call_soon_threadsafe(self._wake, duel_id)

    def _wake(self, duel_id: str) -> None:
        for waiter in self._waiters.pop(duel_id, ()):
            if not waiter.done():
                waiter.set_result(None)

    def alarm(self, duel_id: str) -> Alarm:
        """A follower's wake-ups of ``duel_id`` (its changes) and of its own clock (``Alarm.wait``)."""
        return Alarm(self, duel_id)

    async def wait(self, duel_id: str, timeout: float) -> None:
        """Until the duel changes, or ``timeout`` seconds (at once when another process stored
        more than was taken in while nobody here followed it)."""
        alarm = self.alarm(duel_id)
        try:
            await alarm.wait(asyncio.get_running_loop().time() + timeout)
        finally:
            alarm.close()


class Alarm:
    """One follower's wake-ups: a change of its duel, or the time it set (its next keep-alive, a
    held-back event's release). The clock is a timer of the loop set again only when that time
    changes, so the wake-ups of a thousand followers by their duel's changes cost a future each.
    A follower ``arm``s it before it reads the duel: a change while it reads or sends (a slow
    reader's send waits) wakes its next ``wait`` at once instead of being missed."""

    def __init__(self, hub: Hub, duel_id: str) -> None:
        self.hub, self.duel_id = hub, duel_id
        self._waiter: asyncio.Future | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._when: float | None = None

    def arm(self) -> None:
        """Listen for the duel's changes from now on (until the next ``wait`` returns)."""
        if self._waiter is None:
            self._waiter = asyncio.get_running_loop().create_future()
            self.hub._waiters.setdefault(self.duel_id, set()).add(self._waiter)

    async def wait(self, when: float) -> None:
        """Until the duel changes (since ``arm``), or the loop's clock reaches ``when``."""
        hub = self.hub
        live = hub.duels.get(self.duel_id) or hub.matches.get(self.duel_id)
        if live is not None and live.behind > live.count:
            live.behind = 0              # once: a record that cannot be taken in (altered) is not read in a loop
            await asyncio.to_thread(hub.changed, self.duel_id)
            return
        if when != self._when:
            self._stop_clock()
            self._timer, self._when = asyncio.get_running_loop().call_at(when, self._ring), when
        self.arm()
        assert self._waiter is not None
        try:
            await self._waiter
        finally:
            self._disarm()

    def _ring(self) -> None:
        self._timer = self._when = None
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _stop_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = self._when = None

    def _disarm(self) -> None:
        waiter, self._waiter = self._waiter, None
        waiters = self.hub._waiters.get(self.duel_id)
        if waiter is not None and waiters is not None:     # a wake-up took the whole set already
            waiters.discard(waiter)
            if not waiters:
                del self.hub._waiters[self.duel_id]

    def close(self) -> None:
        """Its clock stopped and its listening ended (the follower left)."""
        self._stop_clock()
        self._disarm()


__all__ = ["Alarm", "Hub", "LiveDuel", "LiveView", "Step", "VIEWS"]
