"""Matches as a service process serves them: read once, kept up to date as events are appended
here or (PostgreSQL) by any process, each view's answer made once per length.

A match is a few dozen events, so every view is derived from the whole record when it grew:
its events with what it may not see withheld (``views.py``) and its summary.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from .. import i18n
from ..access import Access, filed_as
from ..exchange import view_root
from ..replay_file import ReplayFile, dumps
from ..signing import OrganiserKey
from ..errors import VerificationError
from ..store.reading import Store
from ..store.records import Header, Record
from ..store.verifying import Verification
from .rules import MatchState, fold
from . import stream as _stream  # noqa: F401  (a match is read as a stream of this kind: registered)
from .views import commitment, summary, view_dict, view_event, visible_codes, withheld


class LiveMatch:
    """A match this process serves: header, access record, records so far, views made."""

    def __init__(self, store: Store, match_id: str) -> None:
        self.id = match_id
        self.store = store
        # what the signed anchors vouch for, read in one statement (``Store.opened``)
        self.header: Header
        self.header, access, self.cards, self.records, self.broken = store.opened(match_id, "match")
        self.access = Access.from_dict(access or {"visibility": "private"})
        self._access_read = time.monotonic()
        self.lock = threading.Lock()
        self.followers = 0
        self.feeds: dict[str, Any] = {}      # view -> the ``service.fanout.MatchFeed`` its followers share
        self.behind = 0          # put back by a follower (``Hub.follow``): read again at its next wake-up
        self._answers: dict[tuple, tuple[int, Any]] = {}

    def _read_access(self) -> Access:
        return Access.from_dict(self.store.attachment(self.id, "access") or {"visibility": "private"})

    def released(self) -> bool:
        """Whether what the match hid is released to every caller now. The organiser may release
        it from any process: its access is read again at most once a second, once the match has
        ended, until it is released (then it stays so)."""
        ended = self.state().ended is not None
        if ended and not self.access.releases(True, True) and time.monotonic() - self._access_read >= 1.0:
            self._access_read = time.monotonic()
            self.access = self._read_access()
        return self.access.releases(ended, True)

    @property
    def count(self) -> int:
        return len(self.records)

    @property
    def events(self) -> list:
        return [r.event for r in self.records]

    def refresh(self, written: list[Record] | None = None) -> bool:
        """Take in what was appended since; whether anything was new."""
        with self.lock:
            if written and written[0].position == len(self.records):
                new = written
            elif written and written[-1].position < len(self.records):
                return False
            else:
                prev = self.records[-1].hash if self.records else self.header.root
                # nothing is shown from an altered event on (verify says why)
                new, self.broken = self.store.chained_after(self.id, len(self.records), prev)
            if not new:
                return False
            if any(r.event.kind == "decklist_registered" for r in new):
                try:
                    self.cards = self.store.vouched_cards(self.id, new[-1].position + 1)
                except VerificationError:       # its card facts were altered: nothing is shown from here on
                    self.broken = new[0].position
                    return False
            self.records += new
            return True

    def _once(self, key: tuple, build) -> Any:
        """An answer made once per key and length of the record."""
        with self.lock:
            count = len(self.records)
            cached = self._answers.get(key)
            if cached is not None and cached[0] == count:
                return cached[1]
        value = build()
        with self.lock:
            self._answers[key] = (count, value)
        return value

    def state(self) -> MatchState:
        """The match after its events, every refused one collected (none when written here)."""
        return self._once(("state",), lambda: fold(self.events, self.cards, audit=True))

    def view_events(self, view: str, start: int = 0) -> list[dict]:
        """The events from ``start`` on as ``view`` has them, each with its position and time."""
        made = self._once(("events", view), lambda: [
            {"position": r.position, "time": r.recorded, "event": view_dict(r.event, view)} for r in self.records])
        return made[start:]

    def summary(self, view: str) -> dict:
        # Its lines are said in the reader's language: one answer per language.
        return self._once(("summary", view, i18n.current()), lambda: summary(self.events, view, self.cards))

    def verified(self) -> Verification:
        return self._once(("verify",), lambda: self.store.verify(self.id))

    def replay(self, view: str, key: OrganiserKey, games: list[bytes]) -> bytes:
        """The match as a signed ``.ygr`` for ``view``: the judge's carries the record's own chain
        and secret; a view's, its events with what it may not see withheld (their sizes in the
        header's ``withheld``, a commitment to each in ``commitments``), a chain of its own from
        a root derived from the record's. ``games`` are its duels' files for the same view."""
        view = filed_as(view)            # the table's (a witnessed match's recorder): a spectator's file
        stored = self.store.load(self.id, verified=True)
        state = fold(stored.events, stored.cards)
        header = {"kind": "match", "match": self.id, "title": stored.header.title, "policy": state.policy.name,
                  "players": list(state.players), "banlist": state.banlist.name,
                  "banlist_hash": state.banlist_hash, "games": [g.duel for g in state.games]}
        if view == "judge":
            replay = ReplayFile(stored.events, stored.cards, stored.times, "judge", players=list(state.players),
                                match=header, created=stored.header.created, root=stored.header.root,
                                commit_key=stored.header.secret, chain=stored.hashes, games=games)
        else:
            hidden = [[i, counts] for i, ev in enumerate(stored.events) if (counts := withheld(ev, view))]
            header["withheld"] = hidden
            secret = stored.header.secret
            replay = ReplayFile([view_event(ev, view) for ev in stored.events],
                                stored.cards.subset(visible_codes(stored.events, view) & set(stored.cards)),
                                stored.times, view, players=list(state.players), match=header,
                                created=stored.header.created, root=view_root(stored.header.root, view),
                                commitments=[commitment(secret, i, stored.events[i]) for i, _ in hidden],
                                games=games)
        return dumps(replay, key)
