"""The library index: what a search may find of every stream, written with its events.

The store writes a stream's rows (header, attachments, events, anchor) in one transaction of its
recorder; ``install`` makes that same transaction also write this index, in the same database
(SQLite: plain tables, an FTS5 table kept by triggers; PostgreSQL: tables of the store's own
schema, a trigram GIN index when ``pg_trgm`` is there). Nothing is decoded again at query time.

* ``library_streams``: one row per duel or match: title, players, event, round, format, banlist,
  how it came to be, its access (visibility, delay), its length, last turn and result, and the
  first flagged and rolled-back positions (a badge counts only once a reader may see it);
* ``library_marks``: one row per event of a delayed stream (position, recording time, turn):
  where its delay cuts;
* ``library_cards``: one row per card event a **spectator** sees (``seen``): activated,
  summoned, sent to the GY, banished, negated; its passcode, turn and side, kept in passcode,
  action and stream order (is this card in this duel?) and indexed by passcode, action and turn
  (which duels have this card on turn N?);
* ``library_rollbacks``: each rollback or correction and the position it went back to: a card
  event it reverted is left out once a reader sees the rollback.

An append writes a page of the index only when it has something to say: a card event, a new
turn, the end, a rollback (the stream's length is its anchor's row, which the store writes anyway).

The card rows come from the spectator's view of each event as the store's fold has just applied
it (``views.can_see`` and what an activation shows, as ``views.Redactor`` discloses it): a
face-down Set card, a card in a hand or Deck never has a row; when it is shown later, the event
that shows it has one. What the duel's release policy later hands out is not indexed (a search
is a spectator's). Access and delay are read at query time (``library_search``): a stream is
found only while public, and only up to what its delay releases.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import msgpack
from eventsourcing.persistence import StoredEvent

from .card_sources import normal_name
from .chain import to_ms
from .errors import StoreError, VerificationError
from .events import GY, BANISHED, Event
from .views import can_see

ACTIONS = ("activated", "summoned", "sent_to_gy", "banished", "negated")
VERSION = 5
# the store's own topics (store.py names them; this module sits below it)
_HEADERS = ("ygoreplay:duel", "ygoreplay:match")
_HEAD, _ACCESS, _MATCH_GAME = "ygoreplay:head", "ygoreplay:access", "ygoreplay:match_game"
_SUMMONS = frozenset(("normal_summoned", "flip_summoned", "special_summoned"))
_GOING_BACK = frozenset(("rolled_back", "entry_corrected"))

#: The tables, written once for both backends: ``{s}`` is the schema's prefix (PostgreSQL),
#: ``{big}`` a 64-bit integer, ``{text}`` and ``{generated}`` the searched text column's
#: expression and kind, ``{rowid}`` the clustered-table clause (SQLite ``WITHOUT ROWID``).
_COMMON = [
    """CREATE TABLE IF NOT EXISTS {s}library_streams (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',
        created TEXT NOT NULL DEFAULT '', created_ms {big} NOT NULL DEFAULT 0,
        parent TEXT, match TEXT, p0 TEXT NOT NULL DEFAULT '', p1 TEXT NOT NULL DEFAULT '',
        p0_key TEXT NOT NULL DEFAULT '', p1_key TEXT NOT NULL DEFAULT '',
        event TEXT, round TEXT, format TEXT, banlist TEXT,
        imported INTEGER NOT NULL DEFAULT 0, signed INTEGER NOT NULL DEFAULT 1,
        verified INTEGER NOT NULL DEFAULT 0, witnessed INTEGER NOT NULL DEFAULT 0,
        visibility TEXT NOT NULL DEFAULT 'private', delay_events INTEGER NOT NULL DEFAULT 0,
        delay_ms {big} NOT NULL DEFAULT 0,
        turn INTEGER NOT NULL DEFAULT 0, ended INTEGER NOT NULL DEFAULT 0, winner INTEGER, reason TEXT,
        first_flag INTEGER, first_rollback INTEGER, body TEXT GENERATED ALWAYS AS ({text}) {generated})""",
    "CREATE INDEX IF NOT EXISTS library_streams_new ON {s}library_streams (visibility, created_ms DESC, id DESC)",
    "CREATE INDEX IF NOT EXISTS library_streams_p0 ON {s}library_streams (p0_key)",
    "CREATE INDEX IF NOT EXISTS library_streams_p1 ON {s}library_streams (p1_key)",
    """CREATE TABLE IF NOT EXISTS {s}library_marks (stream TEXT NOT NULL, position INTEGER NOT NULL,
        at {big} NOT NULL, turn INTEGER NOT NULL, PRIMARY KEY (stream, position)){rowid}""",
    """CREATE TABLE IF NOT EXISTS {s}library_cards (code {big} NOT NULL, action TEXT NOT NULL,
        stream TEXT NOT NULL, turn INTEGER NOT NULL, position INTEGER NOT NULL, side INTEGER,
        PRIMARY KEY (code, action, stream, turn, position)){rowid}""",
    "CREATE INDEX IF NOT EXISTS library_cards_turn ON {s}library_cards (code, action, turn, stream)",
    """CREATE TABLE IF NOT EXISTS {s}library_rollbacks (stream TEXT NOT NULL, position INTEGER NOT NULL,
        back_to INTEGER NOT NULL, PRIMARY KEY (stream, position)){rowid}""",
]
_TEXT = "title || ' ' || p0 || ' ' || p1 || ' ' || coalesce(event, '') || ' ' || coalesce(round, '')"
_META = "CREATE TABLE IF NOT EXISTS {s}library_meta (version INTEGER PRIMARY KEY)"
#: SQLite's words of the text, in an FTS5 table its triggers keep
_FTS = [
    "CREATE VIRTUAL TABLE IF NOT EXISTS library_text USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')",
    """CREATE TRIGGER IF NOT EXISTS library_text_new AFTER INSERT ON library_streams BEGIN
        INSERT INTO library_text (rowid, body) VALUES (new.rowid, new.body); END""",
    """CREATE TRIGGER IF NOT EXISTS library_text_changed AFTER UPDATE ON library_streams
        WHEN old.body IS NOT new.body BEGIN
        DELETE FROM library_text WHERE rowid = old.rowid;
        INSERT INTO library_text (rowid, body) VALUES (new.rowid, new.body); END""",
    """CREATE TRIGGER IF NOT EXISTS library_text_gone AFTER DELETE ON library_streams BEGIN
        DELETE FROM library_text WHERE rowid = old.rowid; END""",
]
_DIALECTS = {"sqlite": {"big": "INTEGER", "text": _TEXT, "generated": "VIRTUAL", "rowid": " WITHOUT ROWID"},
             "postgresql": {"big": "BIGINT", "text": f"lower({_TEXT})", "generated": "STORED", "rowid": ""}}
_TRIGRAM = "CREATE INDEX IF NOT EXISTS library_streams_body ON {s}library_streams USING gin (body public.gin_trgm_ops)"


@dataclass(frozen=True)
class Seen:
    """What a spectator sees of one event, as the index keeps it: its turn, recording time, the
    card events it shows (action, passcode, side), whether the rules flagged it (a witnessed
    duel), where it sends play back to (a rollback or a correction), a match's settings."""

    turn: int
    at: int
    cards: tuple[tuple[str, int, int | None], ...] = ()
    flagged: bool = False
    back_to: int | None = None
    rollback: bool = False
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class EventRow(StoredEvent):
    """A stored event carrying what the index writes of it in the same transaction."""

    seen: Seen | None = field(default=None, compare=False)


@dataclass(frozen=True)
class HeadRow(StoredEvent):
    """A stored anchor (its version the event count) carrying the status it signs, so that the
    index need not decode the bytes it was just encoded to."""

    status: Mapping[str, Any] | None = field(default=None, compare=False)


def before(event: Event, fold: Any) -> str | None:
    """What ``seen`` needs of the state before the event: the card of the chain link a
    ``chain_link_negated`` names (the link is gone once it is applied)."""
    if event.kind != "chain_link_negated":
        return None
    chain = getattr(fold.state, "chain", ())
    link = getattr(event, "link", 0)
    return chain[link - 1].card if 1 <= link <= len(chain) else None


def seen(event: Event, fold: Any, negated: str | None, at: int) -> Seen:
    """The spectator's card events of ``event`` just applied to ``fold`` (``before`` gave
    ``negated``; ``at`` its recording time in milliseconds): a card counts only when the
    spectator may know it there (``can_see``) or the event shows it to everyone (an activation),
    and the record knows its passcode."""
    state = fold.state
    turn = int(getattr(state, "turn", 0) or 0)
    kind = event.kind
    if kind == "match_started":
        return Seen(turn, at, meta={"event": event.event_name or None, "format": event.format or None,
                                    "banlist": event.banlist or None,
                                    "round": str(event.round) if event.round is not None else None})
    if kind in _GOING_BACK:
        return Seen(turn, at, back_to=event.to, rollback=kind == "rolled_back")
    cards = getattr(state, "cards", None)
    if cards is None:
        return Seen(turn, at)
    out: list[tuple[str, int, int | None]] = []

    def note(action: str, card_id: str | None, shown: bool = False) -> None:
        card = cards.get(card_id) if card_id else None
        if card is not None and card.code and (shown or can_see("spectator", card)):
            out.append((action, card.code, card.controller))

    if kind == "activated":
        note("activated", event.card, shown=True)
        chain = state.chain
        if event.negates is not None and 1 <= event.negates <= len(chain):
            note("negated", chain[event.negates - 1].card, shown=True)
    elif kind in _SUMMONS:
        note("summoned", event.card)
        for material in (*getattr(event, "tributes", ()), *getattr(event, "materials", ())):
            _moved(note, cards.get(material), material)
    elif kind == "summon_negated":
        note("negated", event.card, shown=True)
        _moved(note, cards.get(event.card), event.card)
    elif kind == "chain_link_negated":
        note("negated", negated, shown=True)
    elif kind == "card_moved":
        _moved(note, cards.get(event.card), event.card)
    elif kind == "hand_size_discard":
        for card_id in event.cards:
            _moved(note, cards.get(card_id), card_id)
    elif kind == "monster_set":
        for tribute in event.tributes:
            _moved(note, cards.get(tribute), tribute)
    flags = getattr(fold, "flags", None)
    flagged = bool(flags) and flags[-1].index == fold.position - 1
    return Seen(turn, at, tuple(dict.fromkeys(out)), flagged)


def _moved(note: Callable[..., None], card: Any, card_id: str) -> None:
    if card is not None and card.zone == GY:
        note("sent_to_gy", card_id)
    elif card is not None and card.zone == BANISHED:
        note("banished", card_id)


# -- writing -------------------------------------------------------------------------------------


class Index:
    """The library index of one store: its tables' names, and the rows it adds to a write."""

    def __init__(self, backend: str, events_table: str, schema: str | None = None) -> None:
        self.backend = backend
        self.prefix = prefix = f'"{schema}".' if backend == "postgresql" and schema else ""
        self.streams, self.marks, self.cards, self.rollbacks, self.meta = (
            f"{prefix}library_{t}" for t in ("streams", "marks", "cards", "rollbacks", "meta"))
        self.heads = f"{prefix}{events_table}"       # the store's own: each anchor's row counts the events
        self.schema = schema or "public"
        self.ready = False               # its tables are built (a read-only store may predate them)
        # What this process knows, so that most appends write nothing here: the delayed streams
        # (loaded at start, kept by their access rows) and each stream's row as this process last
        # wrote it, with the event count then: a write that follows it directly (no other writer
        # appended since) and changes none of it has nothing to write.
        self.delayed: set[str] = set()
        self._written: dict[str, tuple[int, tuple]] = {}

    REMEMBERED = 16384

    def forget(self, rows: Iterable[StoredEvent]) -> None:
        """A write that failed: what it would have written is not known to be there."""
        for row in rows:
            self._written.pop(str(row.originator_id).partition("/")[0], None)

    def sql(self, text: str) -> str:
        """A statement written with ``?`` and ``{streams}``-style names, in this backend's form."""
        text = text.format(streams=self.streams, marks=self.marks, cards=self.cards, rollbacks=self.rollbacks,
                           meta=self.meta, heads=self.heads)
        return text.replace("?", "%s") if self.backend == "postgresql" else text

    def create(self, cursor: Any) -> None:
        statements = [*_COMMON, _META, *(_FTS if self.backend == "sqlite" else ())]
        for statement in statements:
            cursor.execute(statement.format(s=self.prefix, **_DIALECTS[self.backend]))
        if self.backend == "postgresql":       # trigram search when the extension is there or may be made
            cursor.execute("SAVEPOINT library_trgm")
            try:
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public")
            except Exception:                  # not allowed here: the plain indexes serve
                cursor.execute("ROLLBACK TO SAVEPOINT library_trgm")
            cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
            if cursor.fetchone() is not None:
                cursor.execute(_TRIGRAM.format(s=self.prefix))

    def write(self, cursor: Any, rows: Iterable[StoredEvent]) -> None:
        """The index rows of ``rows`` (a write of the store), with ``cursor`` (its transaction).
        No statement reads back: PostgreSQL runs them in the recorder's pipeline. The marks and
        card rows of all the events go in one statement each (a group commit's many appends:
        each statement of a pipeline is a wait of its own)."""
        appended: dict[str, int] = {}
        marks: list[tuple] = []
        cards: list[tuple] = []
        for row in rows:
            owner, _, part = str(row.originator_id).partition("/")
            if isinstance(row, EventRow):
                appended[owner] = appended.get(owner, 0) + 1
            if isinstance(row, EventRow) and row.seen is not None:
                self._event(cursor, owner, row.originator_version - 1, row.seen, marks, cards)
            elif row.topic in _HEADERS and not part and row.originator_version == 0:
                self._header(cursor, owner, row.state)
            elif row.topic == _HEAD:
                self._head(cursor, owner, row, appended.get(owner, 0))
            elif row.topic == _ACCESS:
                self._access(cursor, owner, row.state)
            elif row.topic == _MATCH_GAME:
                link = msgpack.unpackb(row.state)
                cursor.execute(self.sql("UPDATE {streams} SET match = ? WHERE id = ?"), (str(link.get("id")), owner))
        if marks:
            self._rows(cursor, "marks", ("stream", "position", "at", "turn"), ("text", "int4", "int8", "int4"), marks)
        if cards:
            self._rows(cursor, "cards", ("code", "action", "turn", "stream", "position", "side"),
                       ("int8", "text", "int4", "text", "int4", "int4"), cards)

    def _rows(self, cursor: Any, table: str, columns: tuple[str, ...], types: tuple[str, ...],
              rows: list[tuple]) -> None:
        """Rows inserted into one of the index's tables (a row already there is kept). On
        PostgreSQL one statement of one array a column, however many rows: ``executemany`` in a
        pipeline is a statement a row, ~15 of them a group commit of 60 appends (issue 25)."""
        names = ", ".join(columns)
        if self.backend == "postgresql":
            arrays = ", ".join(f"%s::{kind}[]" for kind in types)
            cursor.execute(f"INSERT INTO {getattr(self, table)} ({names}) SELECT * FROM unnest({arrays}) "
                           "ON CONFLICT DO NOTHING", [list(column) for column in zip(*rows)], prepare=True)
            return
        cursor.executemany(f"INSERT INTO {getattr(self, table)} ({names}) VALUES ({', '.join('?' * len(columns))}) "
                           "ON CONFLICT DO NOTHING", rows)

    def _header(self, cursor: Any, stream: str, state: bytes) -> None:
        header = msgpack.unpackb(state)["header"]
        source, provenance = header.get("source") or {}, header.get("provenance") or {}
        imported = bool(provenance.get("imported") or source.get("sha256"))
        signed = not imported or bool(provenance.get("signed_by"))
        verified = imported and bool(provenance.get("trusted")) and source.get("unverified") is not True
        created = str(header.get("created") or "")
        cursor.execute(self.sql(
            "INSERT INTO {streams} (id, kind, title, created, created_ms, parent, imported, signed, verified) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, "
            "title = excluded.title, created = excluded.created, created_ms = excluded.created_ms, "
            "parent = excluded.parent, imported = excluded.imported, signed = excluded.signed, "
            "verified = excluded.verified"),
            (stream, str(header.get("kind", "duel")), str(header.get("title") or ""), created,
             _ms(created), header.get("parent"), int(imported), int(signed), int(verified)))

    def _access(self, cursor: Any, stream: str, state: bytes) -> None:
        access = msgpack.unpackb(state)
        delay = access.get("delay") or {}
        if delay.get("events") or delay.get("seconds"):
            self.delayed.add(stream)
        else:
            self.delayed.discard(stream)
        release = access.get("release") or {}
        cursor.execute(self.sql(
            "UPDATE {streams} SET visibility = ?, delay_events = ?, delay_ms = ?, event = coalesce(?, event), "
            "witnessed = CASE WHEN ? THEN 1 ELSE witnessed END WHERE id = ?"),
            (str(access.get("visibility", "unlisted")), int(delay.get("events", 0)),
             int(float(delay.get("seconds", 0)) * 1000), release.get("event"),
             access.get("mode") == "witnessed", stream))

    def _head(self, cursor: Any, stream: str, row: StoredEvent, appended: int) -> None:
        if isinstance(row, HeadRow) and row.status is not None:
            count, status = row.originator_version, row.status
        else:
            head = msgpack.unpackb(row.state)
            count, status = int(head.get("n", 0)), head.get("status") or {}
        players = [str(p) for p in (status.get("players") or [])][:2] + ["", ""]
        winner = status.get("winner")
        # Written only when it changes (a new turn, the end, the players named): most appends change
        # none of it, and write no page of the index. The length is the anchor's own row (``heads``).
        values = (int(status.get("turn") or 0), int(bool(status.get("ended"))),
                  winner if isinstance(winner, int) else None, status.get("reason") or status.get("how"),
                  int(bool(status.get("witnessed"))), players[0], players[1])
        if self._written.get(stream) == (count - appended, values):
            self._written[stream] = (count, values)     # as this process last wrote it, and no one since
            return
        if len(self._written) >= self.REMEMBERED:
            self._written.clear()
        self._written[stream] = (count, values)
        cursor.execute(self.sql(
            "UPDATE {streams} SET turn = ?, ended = ?, winner = ?, reason = ?, "
            "witnessed = CASE WHEN ? = 1 THEN 1 ELSE witnessed END, p0 = ?, p1 = ?, p0_key = ?, p1_key = ? "
            "WHERE id = ? AND (turn <> ? OR ended <> ? "
            "OR coalesce(winner, -1) <> coalesce(?, -1) OR coalesce(reason, '') <> coalesce(?, '') "
            "OR witnessed < ? OR p0 <> ? OR p1 <> ?)"),
            (*values[:5], players[0], players[1], normal_name(players[0]), normal_name(players[1]), stream, *values))

    def _event(self, cursor: Any, stream: str, position: int, seen_: Seen, marks: list[tuple],
               cards: list[tuple]) -> None:
        """An event's index rows: its mark and card rows added to ``marks`` and ``cards``
        (``write`` inserts them all at once), the rest written now."""
        # Marks serve only a delayed stream's cut. A stream delayed after some of its events were
        # recorded (or by another process this one has not heard of) has none for them, and so
        # shows less, never more, until it ends.
        if stream in self.delayed:
            marks.append((stream, position, seen_.at, seen_.turn))
        cards += [(code, action, seen_.turn, stream, position, side) for action, code, side in seen_.cards]
        if seen_.back_to is not None:        # what it reverts is left out at query time (``library_search``)
            cursor.execute(self.sql("INSERT INTO {rollbacks} (stream, position, back_to) VALUES (?, ?, ?) "
                                    "ON CONFLICT DO NOTHING"), (stream, position, seen_.back_to))
        if seen_.flagged or seen_.rollback:
            column = "first_flag" if seen_.flagged else "first_rollback"
            cursor.execute(self.sql(f"UPDATE {{streams}} SET {column} = coalesce({column}, ?) WHERE id = ?"),
                           (position, stream))
        if seen_.meta:
            meta = seen_.meta
            cursor.execute(self.sql("UPDATE {streams} SET event = coalesce(?, event), round = ?, format = ?, "
                                    "banlist = ? WHERE id = ?"),
                           (meta.get("event"), meta.get("round"), meta.get("format"), meta.get("banlist"), stream))


def _ms(iso: str) -> int:
    try:
        return to_ms(iso)
    except (ValueError, TypeError):
        return 0


# -- the store's side: the hook, and building the index of a store made before it ------------------


def index_of(store: Any) -> Index:
    """The library index of ``store``'s tables, not read yet (``install`` makes it written)."""
    recorder = store.events
    return Index(store.backend, recorder.events_table_name, getattr(recorder.datastore, "schema", None))


def install(store: Any, index: Index, folds: Mapping[str, Any]) -> None:
    """Make every write of ``store``'s recorder write its ``index`` rows in the same transaction;
    on a writable store whose index is missing or older, build it first from what the store
    holds (``folds``: the store's stream kinds by name, to fold each stream as its appends do)."""
    recorder = store.events
    if store.readonly:             # it writes nothing: the search asks ``built`` when it is used
        return
    index.ready = built(store, index)
    if not index.ready:
        rebuild(store, index, folds, force=False)
        index.ready = True
    with store.events.datastore.transaction(commit=False) as cursor:
        cursor.execute(index.sql("SELECT id FROM {streams} WHERE delay_events > 0 OR delay_ms > 0"))
        index.delayed = {row["id"] for row in cursor.fetchall()}
    inner, outer = recorder._insert_events, recorder.insert_events

    def _insert_events(cursor: Any, stored_events: Any, **kwargs: Any) -> Any:
        result = inner(cursor, stored_events, **kwargs)
        index.write(cursor, stored_events)
        return result

    def insert_events(stored_events: Any, **kwargs: Any) -> Any:
        try:
            return outer(stored_events, **kwargs)
        except BaseException:
            index.forget(stored_events)
            raise

    recorder._insert_events, recorder.insert_events = _insert_events, insert_events


def built(store: Any, index: Index) -> bool:
    """Whether the store's index exists at this version."""
    try:
        with store.events.datastore.transaction(commit=False) as cursor:
            cursor.execute(index.sql("SELECT max(version) AS v FROM {meta}"))
            row = cursor.fetchone()
    except Exception:                  # no table yet: either backend's error, its transaction rolled back
        return False
    return row is not None and row["v"] == VERSION


def rebuild(store: Any, index: Index, folds: Mapping[str, Any], force: bool = True) -> int:
    """The index made anew from every stream the store holds, in one transaction: each stream
    folded from its start, its rows given to ``Index.write`` as an append gives them. How many
    streams. Processes opening a store at once build it once: the first holds the store's write
    lock (PostgreSQL: an advisory lock) and the others, unless ``force``d, find it built."""
    with store.events.datastore.transaction(commit=True) as cursor:
        if index.backend == "postgresql":
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"{index.schema}.library",))
        cursor.execute(_META.format(s=index.prefix))
        cursor.execute(index.sql("SELECT max(version) AS v FROM {meta}"))
        found = cursor.fetchone()["v"]
        if found == VERSION and not force:
            return 0
        if found != VERSION:                         # made by another version: its tables go
            for table in ("text", "cards", "marks", "rollbacks", "streams", "meta"):
                if index.backend == "sqlite" or table != "text":
                    cursor.execute(f"DROP TABLE IF EXISTS {index.streams.replace('streams', table)}")
        index.create(cursor)
        for table in (index.cards, index.marks, index.rollbacks, index.streams, index.meta):
            cursor.execute(f"DELETE FROM {table}")
        streams, start = [], 1                       # no stream is added meanwhile (the write lock)
        while True:
            batch = store.events.select_notifications(start, 500, topics=list(_HEADERS))
            streams += [(str(n.originator_id), n.state) for n in batch]
            if len(batch) < 500:
                break
            start = batch[-1].id + 1
        for stream_id, header in streams:
            index.write(cursor, _replayed(store, stream_id, header, folds))
        cursor.execute(index.sql("INSERT INTO {meta} (version) VALUES (?)"), (VERSION,))
    return len(streams)


def _replayed(store: Any, stream_id: str, header: bytes, folds: Mapping[str, Any]) -> list[StoredEvent]:
    """A stored stream's rows as its appends wrote them, its events carrying what a spectator
    saw of each (folded as the store folds an import: nothing refused). Only what its signed
    anchors vouch for (``Store.opened``, what the service shows): its vouched events with the
    card facts signed with them, and the anchor at the last of them; none of a stream whose
    header they do not name. Read as stored, a reindex put an altered event's card events in
    the index, for the search and a card's numbers to count."""
    try:
        vouched, _access, cards, records, _broken = store.opened(stream_id, None)
    except (StoreError, VerificationError):       # not there, or altered: nothing of it is indexed
        return []
    kind = vouched.kind
    rows: list[StoredEvent] = [StoredEvent(stream_id, 0, _HEADERS[kind != "duel"], header)]
    for name in ("access", "match_game"):
        found = store.events.select_events(f"{stream_id}/{name}", desc=True, limit=1)
        rows += found
    stream = folds.get(kind)
    fold = stream.new(cards) if stream is not None else None
    for record in records if fold is not None else ():
        event = record.event
        negated = before(event, fold)
        fold.append(event, strict=False)
        # the index reads an event row's ``seen`` only, never its bytes
        rows.append(EventRow(stream_id, record.position + 1, event.kind, b"",
                             seen(event, fold, negated, to_ms(record.recorded))))
    count = len(records)
    rows += store.events.select_events(f"{stream_id}/head", gt=count - 1, lte=count)
    return rows
