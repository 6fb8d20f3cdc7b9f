"""One way to open a duel wherever it is: a file of any registered format (``formats``: JSON Lines,
a ``.ygr`` replay file, an EDOPro replay imported in memory), a stored duel.

The commands that study a duel (show, log, play, check, audit, export) work the same on all of
them, and on any view a full record can give.
"""
from __future__ import annotations

import os
from dataclasses import field, replace
from typing import TYPE_CHECKING, Iterator

from .errors import InputError, VerificationError
from .i18n import say
from .lazy_dataclass import dataclass
from .errors import StoreError

# What opening a file, a view or an audit needs is imported where it is used: ``show DUEL --at N``
# of a stored duel (``stored_board``) needs none of it (the log, the replay file's format, the
# views, the formats: some 5 ms of each such command's start-up, issue 25;
# ``tests/test_startup.py`` holds it so).
if TYPE_CHECKING:
    from .cards import CardDB
    from .events import Event
    from .replay_file import ReplayFile
    from .rules import AuditReport
    from .state import DuelState
    from .store.reading import Store


class SourceError(InputError):
    """The duel cannot be opened as asked (unknown view, a view narrower than requested…)."""


@dataclass
class Source:
    """A duel opened for study: its events and card facts as one view holds them.

    ``secret`` keys the views a full record derives (a stored duel's or a judge file's own, so a
    view shown here is the view exported; a random one for a JSON Lines file)."""

    name: str
    events: list[Event]
    cards: CardDB
    view: str = "judge"
    disclosures: list = field(default_factory=list)
    replay: ReplayFile | None = None
    reverted: dict[int, int] = field(default_factory=dict)
    renames: list = field(default_factory=list)
    secret: bytes = field(default_factory=lambda: os.urandom(32))
    duel_id: str | None = None
    records: list = field(default_factory=list, repr=False)       # a stored duel's, as its anchors vouch
    root: bytes | None = None                 # where a full record's chain starts (a stored duel's, a judge file's)

    #: view -> how many events it may see, where fewer than the record holds (a stored what-if
    #: branch's views but the judge's: ``stored_cut``); every reader of a view goes through ``seen``
    cuts: dict[str, int] = field(default_factory=dict)
    redactions: dict = field(default_factory=dict, repr=False)     # view -> what ``_as`` derived
    cut_sources: dict = field(default_factory=dict, repr=False)    # view -> what ``seen`` cut

    def seen(self, view: str | None = None) -> Source:
        """The duel as far as ``view`` may see it, as a source of its own (this one when it may see
        every event): a judge's what-if branch stops, for every view but the judge's, where the
        service's views of it stop (``stored_cut``, ZONE-12, ZONE-13). Read a view's events, its
        reverted positions and its turns from it, never from the full record past its cut."""
        cut = self.cuts.get(view or self.view)
        if cut is None or cut >= len(self.events):
            return self
        key = view or self.view
        if key not in self.cut_sources:
            self.cut_sources[key] = replace(self.upto(cut), cuts={}, cut_sources={})
        return self.cut_sources[key]

    def _as(self, view: str | None) -> tuple[list[Event], CardDB, list, list, str]:
        from .views import VIEWS, redact, view_cards
        view = view or self.view
        if view not in VIEWS:
            raise SourceError(say("unknown view {view!r} (views: {names_list})",
                                  view=view, names_list=', '.join(VIEWS)))
        shown = self.seen(view)
        if shown is not self:
            return shown._as(view)
        if view == self.view:
            return self.events, self.cards, self.disclosures, self.renames, view
        if self.view != "judge":
            raise SourceError(say("{name} is a {view} view: it cannot show the {view2} view",
                                  name=self.name, view=self.view, view2=view))
        if view not in self.redactions:          # derived once: play steps back and forth in it
            red = redact(self.events, self.cards, view, self.secret)
            self.redactions[view] = (red.events, view_cards(self.cards, red.codes), red.disclosures, red.renames, view)
        return self.redactions[view]

    def upto(self, count: int | None) -> Source:
        """This full record's first ``count`` events (every one: None) as a source of their own:
        what a rollback or correction past them reverted is in effect there."""
        if count is None or count >= len(self.events):
            return self
        return replace(self, events=self.events[:count], records=self.records[:count], redactions={},
                       reverted={pos: by for pos, by in self.reverted.items() if by < count})

    def as_view(self, view: str | None = None) -> tuple[list[Event], CardDB, list, list, str]:
        """The events, card facts, disclosures and renames ``view`` has of the duel, and the view."""
        return self._as(view)

    def steps(self, view: str | None = None) -> Iterator[tuple[int, Event, DuelState]]:
        """(index, event, state before it) as ``view`` saw the duel."""
        from .log import judge_steps
        from .views import ViewReplay
        events, cards, disclosures, renames, view = self._as(view)
        if view == "judge":
            return judge_steps(events, cards)
        return ViewReplay(events, cards, disclosures, renames).steps()

    def marks(self, view: str | None = None) -> dict[int, dict] | None:
        """A witnessed duel's marks of each event as ``view`` can tell them (its own fold's: who
        entered it, the rules it broke, confirmed, disputed, struck); None for a machine's record."""
        from .events import DuelStarted
        from .rules import History
        from .views import ViewReplay
        events, cards, disclosures, renames, view = self._as(view)
        if not (events and isinstance(events[0], DuelStarted) and events[0].witnessed):
            return None
        if view == "judge":
            history = History(cards, audit=True)
            history.extend(events)
        else:
            history = ViewReplay(events, cards, disclosures, renames).folded()
        return {index: history.marks(index) for index in range(len(events))}

    def state_after(self, index: int, view: str | None = None) -> DuelState:
        """The board after event ``index`` as ``view`` saw it."""
        from .rules import History
        from .views import ViewReplay
        events, cards, disclosures, renames, view = self._as(view)
        if view == "judge":
            history = History(cards, audit=True)
            history.extend(events[:index + 1])
            return history.state
        for i, state in enumerate(ViewReplay(events[:index + 1], cards, disclosures, renames).states()):
            if i == index:
                return state
        raise SourceError(say("{name} has no event {index}", name=self.name, index=index))

    def audit(self) -> AuditReport:
        """Every rule checked as far as this record knows: a full record's whole, a view's (a
        record of what its viewer saw) with what it could not decide listed as undecided."""
        from .rules import audit
        from .views import ViewReplay
        if self.view == "judge":
            return audit(self.events, self.cards)
        return ViewReplay(self.events, self.cards, self.disclosures, self.renames).audit()

    def recorded_by(self, view: str) -> list[Event]:
        """The record ``view``'s viewer would have written of this duel (``views.recorded_by``):
        the full record's ids, each card it could not see unknown until an event shows it."""
        from .views import VIEWS, recorded_by
        if view not in VIEWS:
            raise SourceError(say("unknown view {view!r} (views: {names_list})",
                                  view=view, names_list=', '.join(VIEWS)))
        if self.view != "judge":
            raise SourceError(say("{name} is a {view} view: the record a viewer wrote is derived from the full "
                                  "record (the judge file or the stored duel); a view file is checked as it is",
                                  name=self.name, view=self.view))
        return recorded_by(self.seen(view).events, self.cards, view)

    def turn_start(self, turn: int) -> int:
        for i, e in enumerate(self.events):
            if e.kind == "turn_started" and e.turn == turn:
                return i
        raise SourceError(say("{name}: the duel has no turn {turn}", name=self.name, turn=turn))

    def chain_problem(self) -> int | None:
        from .replay_file import verify_chain
        return verify_chain(self.replay) if self.replay is not None else None


def resolve_duel(store: Store, spec: str, files: bool = True) -> str:
    """A stored duel's id from an unambiguous prefix of it, or a message that says what ``spec``
    looks like instead: a folder, a file (where only stored duels are taken), a missing file, a
    prefix that several ids share (naming them)."""
    try:
        return store.resolve(spec)
    except StoreError:
        from pathlib import Path

        from .formats import FormatError, by_suffix, find_format
        path = Path(spec)
        if path.is_dir():
            raise SourceError(say("{spec}: a folder, not a duel file or a stored duel id", spec=spec)) from None
        if path.is_file() and not files:
            try:
                verb = find_format(path).stored_by
            except FormatError:
                verb = None
            raise SourceError(say("{spec}: a file; this command takes a stored duel ({verb} it first: ygoreplay "
                                  "{verb} {spec})", spec=spec, verb=verb) if verb
                              else say("{spec}: a file; this command takes a stored duel", spec=spec)) from None
        if "/" in spec or "\\" in spec or by_suffix(path) is not None:
            raise SourceError(say("{spec}: no such file, and no duel of {name} has this id",
                                  spec=spec, name=store.name)) from None
        matches = [d for d in store.ids() if d.startswith(spec)]
        if len(matches) > 1:
            shown = ", ".join(matches[:6]) + (", …" if len(matches) > 6 else "")
            raise SourceError(say("{spec!r} is ambiguous: {count} duels of {name} start with it ({shown}); give "
                                  "more characters of the id",
                                  spec=spec, count=len(matches), name=store.name, shown=shown)) from None
        raise


def stored_board(store: Store, spec: str, at: int | None) -> tuple[int, Event, DuelState]:
    """The board after event ``at`` (the last when None) of a stored duel as the judge sees it, with
    that event's index and the event: from the store's nearest snapshot, reading and folding only
    the events after it (``Source.state_after`` folds the duel from its start: issue 25)."""
    duel_id = resolve_duel(store, spec)
    if at is not None and at >= 0:
        try:
            state, shown = store.seek(duel_id, at + 1)       # one read: the duel's length is not needed
        except StoreError:
            last = store.record_at(duel_id)
            if last is not None and at <= last.position:
                raise                                        # not past the end: the store's reason
        else:
            if shown is not None:
                return at, shown.event, state
    if at is not None:
        last = store.record_at(duel_id)              # only its position is said: no event of it is shown
        raise SourceError(say("{spec}: --at {at} is outside the duel's events 0..{value}", spec=duel_id, at=at,
                              value=last.position) if last is not None
                          else say("{duel_id}: the duel has no events", duel_id=duel_id))
    state, shown = store.seek(duel_id)               # the board and its last event, both as the anchors vouch
    if shown is None:
        raise SourceError(say("{duel_id}: the duel has no events", duel_id=duel_id))
    return shown.position, shown.event, state


def open_source(spec: str, store: Store | None, cards: CardDB) -> Source:
    """A path to a duel's file of any registered format (``formats.find_format``), or (when no
    such file exists) a stored duel id. ``cards`` names the cards a file does not carry the facts
    of (an EDOPro replay carries its cards' stats, not their names). A match file is refused: the
    match commands read it, as each view may see it (``match.views``)."""
    from pathlib import Path
    path = Path(spec)
    if path.is_file():
        from .formats import find_format
        from .replay_file import ReplayFile
        fmt = find_format(path)
        if fmt.yields == "match":   # read as a duel, its decklists were any view's, whole
            from .i18n import t
            raise SourceError(t("{path}: a match file, not a duel replay: the match commands read it "
                                "('ygoreplay match --help')", path=spec))
        loaded = fmt.read(path, cards, name=spec)
        replay = loaded.native
        if isinstance(replay, ReplayFile):
            return Source(spec, replay.events, replay.cards, replay.view, replay.disclosures, replay,
                          renames=replay.renames, secret=replay.commit_key or os.urandom(32), root=replay.root)
        return Source(spec, loaded.events, loaded.cards)
    if store is None:
        raise SourceError(say("{spec}: no such file", spec=spec))
    duel = store.load(resolve_duel(store, spec), verified=False)
    cuts = {}
    if duel.header.parent:                      # a what-if branch: each view as far as it may see it
        from .views import VIEWS
        cuts = {view: cut for view in VIEWS if view != "judge" and (cut := stored_cut(store, duel.id, view)) is not None}
    return Source(duel.id, duel.events, duel.cards, secret=duel.header.secret, duel_id=duel.id, root=duel.header.root,
                  reverted={r.position: r.reverted_by for r in duel.records if r.reverted_by is not None},
                  records=duel.records, cuts=cuts)


def stored_cut(store: Store, duel_id: str, view: str) -> int | None:
    """How many of a stored duel's events ``view`` (not the judge's) may be shown or handed on
    (None: every one): a what-if branch's stop where it left while its parent has not released
    what it hid (``library_search.branch_cut``, as far as the parent shows the view). The one cut
    of every reader of the store but the service (an export, a sheet, ``show``, ``log``, ``play``:
    ``Source.seen``), whose live views cut as ``LiveDuel.branch_cut`` does. The command line's
    user owns the store: no spectator's delay cuts it (a live follower's does)."""
    from .library_search import branch_cut, released
    info = store.info(duel_id)
    if not info.parent:
        return None
    try:
        parent, above = store.info(info.parent), stored_cut(store, info.parent, view)
        return branch_cut(info.branch_at or 0, released(store, info.parent),
                          parent.events if above is None else min(parent.events, above))
    except (StoreError, VerificationError):       # a parent not there, or altered: nothing of it
        return 0
