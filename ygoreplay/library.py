"""The library index: what a search may find of every stream, written with its events.

The store writes a stream's rows (header, attachments, events, anchor) in one transaction of its
recorder; ``install`` makes that same transaction also write this index, in the same database
(SQLite: plain tables, an FTS5 table kept by triggers; PostgreSQL: tables of the store's own
schema, a trigram GIN index when ``pg_trgm`` is there). Nothing is decoded again at query time.

* ``library_streams``: one row per duel or match: title, players, event, round, format, banlist,
  how it came to be, its access (visibility, delay), its length, last turn and result, and the
  first flagged (as the spectator's own fold flags it) and rolled-back positions (a badge counts only
  once a reader may see it);
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

These tables are not signed, and whoever may write to the database may write to them. So nothing
a search shows or finds by is taken from them on their word (issue 25, eleventh pass): a stream's
row is shown only when it is the row this module writes of what the store vouches for
(``Index.vouched``: the header and last anchor status ``Store.listed`` decides on, the access
and match attachments the service itself reads), and every other row (a card event, a mark, a
rollback; a stream's first flag, first rollback and match settings) carries a tag, an HMAC under
the organiser's private key (``Index.tag``), checked for each row a search reads (``genuine``).
A row inserted or altered is left out (and the answer says how many); a row deleted shows less,
never more, and ``check`` (``ygoreplay search --check``) finds it.
"""
from __future__ import annotations

import functools
import hmac
from operator import itemgetter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, NamedTuple

import msgpack
from eventsourcing.persistence import StoredEvent

from . import pg_pipeline
from .card_sources import normal_name
from .chain import to_ms
from .errors import StoreError, VerificationError
from .events import GY, BANISHED, Event
from .i18n import say
from .lazy_dataclass import made

ACTIONS = ("activated", "summoned", "sent_to_gy", "banished", "negated")
#: 6: every row keyed (``Index.tag``), its stream's row checked against what its anchors vouch for;
#: 7: no card event of a branch's what-if (``what_if``); 8: nor its rollbacks and corrections;
#: 9: a flag only where the spectator's own fold flags it (``views.flag_seen``)
VERSION = 9
#: What the index's tags are made over: this and the row (``Index.tag``); 16 bytes of the HMAC kept
_TAG_LABEL = b"ygoreplay/library/1\0"
_TAG_BYTES = 16
#: the index's verdicts on rows kept (``Index.genuine``, ``Index.vouched``), by the rows' exact values
_GENUINE_KEPT = 262144
#: the columns of a stream's row ``Index.vouched`` decides on
_VOUCHED = ("id", "kind", "title", "created", "created_ms", "parent", "p0", "p1", "p0_key", "p1_key", "event",
            "meta_event", "round", "format", "banlist", "meta_mac", "imported", "signed", "verified", "witnessed",
            "visibility", "delay_events", "delay_ms", "match", "turn", "ended", "winner", "reason", "first_flag",
            "flag_mac", "first_rollback", "rollback_mac")
_vouched_values = itemgetter(*_VOUCHED)
# the store's own topics (store/records.py names them; this module sits below it)
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
        first_flag INTEGER, first_rollback INTEGER, meta_event TEXT, meta_mac {blob}, flag_mac {blob},
        rollback_mac {blob}, body TEXT GENERATED ALWAYS AS ({text}) {generated})""",
    "CREATE INDEX IF NOT EXISTS library_streams_new ON {s}library_streams (visibility, created_ms DESC, id DESC)",
    "CREATE INDEX IF NOT EXISTS library_streams_p0 ON {s}library_streams (p0_key)",
    "CREATE INDEX IF NOT EXISTS library_streams_p1 ON {s}library_streams (p1_key)",
    """CREATE TABLE IF NOT EXISTS {s}library_marks (stream TEXT NOT NULL, position INTEGER NOT NULL,
        at {big} NOT NULL, turn INTEGER NOT NULL, mac {blob} NOT NULL, PRIMARY KEY (stream, position)){rowid}""",
    """CREATE TABLE IF NOT EXISTS {s}library_cards (code {big} NOT NULL, action TEXT NOT NULL,
        stream TEXT NOT NULL, turn INTEGER NOT NULL, position INTEGER NOT NULL, side INTEGER, mac {blob} NOT NULL,
        PRIMARY KEY (code, action, stream, turn, position)){rowid}""",
    "CREATE INDEX IF NOT EXISTS library_cards_turn ON {s}library_cards (code, action, turn, stream)",
    """CREATE TABLE IF NOT EXISTS {s}library_rollbacks (stream TEXT NOT NULL, position INTEGER NOT NULL,
        back_to INTEGER NOT NULL, mac {blob} NOT NULL, PRIMARY KEY (stream, position)){rowid}""",
]
_TEXT = "title || ' ' || p0 || ' ' || p1 || ' ' || coalesce(event, '') || ' ' || coalesce(round, '')"
_META = "CREATE TABLE IF NOT EXISTS {s}library_meta (version INTEGER PRIMARY KEY, mac {blob})"
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


@functools.cache
def sqlite_shape() -> "SqliteShape":
    """The index's tables and triggers on SQLite as this module makes them (``store.own_schema``
    refuses a store file holding others in their place): its tables are read (``search``) and
    written (every write), so none may be a view or compute a column but ``body``, as here (nor
    may the tables FTS5 keeps ``library_text`` in)."""
    sql = " ".join(_COMMON[0].format(s="", **_DIALECTS["sqlite"]).split())
    return SqliteShape(tables=("library_streams", "library_marks", "library_cards", "library_rollbacks",
                               "library_meta", "library_text", *(f"library_text_{shadow}" for shadow in
                                                                 ("data", "idx", "content", "docsize", "config"))),
                       triggers=frozenset(" ".join(s.replace("IF NOT EXISTS ", "", 1).split())
                                          for s in _FTS if s.startswith("CREATE TRIGGER")),
                       computed={"library_streams": ("body", sql[sql.rindex(", body "):])},
                       virtual={"library_text": " ".join(_FTS[0].replace("IF NOT EXISTS ", "", 1).split())},
                       keys=_sqlite_keys())


def primary_key(conn: Any, table: str) -> tuple[str, ...]:
    """The columns of a SQLite table's primary key, in the key's order."""
    return tuple(name for name, in conn.execute("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk",
                                                (table,)))


def sqlite_keys(conn: Any) -> dict[str, tuple[str, ...]]:
    """The primary key each index table of a SQLite store file must have (``store.own_schema``):
    this version's when its index is this version's; none when another version made it, whose
    tables ``rebuild`` drops before anything is written to them (an index of version 3 keyed
    ``library_cards`` by stream before action, and a store made then could not be opened)."""
    import sqlite3
    try:
        found = conn.execute("SELECT max(version) FROM library_meta").fetchone()[0]
    except sqlite3.Error:                        # no index yet: made on the open
        return {}
    return sqlite_shape().keys if found == VERSION else {}


def _sqlite_keys() -> dict[str, tuple[str, ...]]:
    """The primary key of each index table as this module makes it on SQLite (read off the tables
    made in memory): a store file's must be the same (``store.own_schema``)."""
    import sqlite3
    conn = sqlite3.connect(":memory:")
    try:
        keys = {}
        for statement in (*_COMMON, _META):
            if statement.startswith("CREATE TABLE"):
                conn.execute(statement.format(s="", **_DIALECTS["sqlite"]))
                table = statement.split("{s}", 1)[1].split(" ", 1)[0]
                keys[table] = primary_key(conn, table)
        return keys
    finally:
        conn.close()


class SqliteShape(NamedTuple):
    """What a SQLite file's tables may be (``store.own_schema``): ``tables`` those checked;
    ``triggers`` the only triggers' statements; ``computed`` a table's one generated column and
    how its statement ends (it defines that column); ``virtual`` a virtual table's statement
    (statements with their white space made single spaces); ``keys`` each table's primary key."""

    tables: tuple[str, ...]
    triggers: frozenset[str]
    computed: dict[str, tuple[str, str]]
    virtual: dict[str, str]
    keys: dict[str, tuple[str, ...]]


_DIALECTS = {"sqlite": {"big": "INTEGER", "text": _TEXT, "generated": "VIRTUAL", "rowid": " WITHOUT ROWID",
                        "blob": "BLOB"},
             "postgresql": {"big": "BIGINT", "text": f"lower({_TEXT})", "generated": "STORED", "rowid": "",
                            "blob": "BYTEA"}}
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
    #: an append's first event: the chain hash of the stored event it was chained onto, which its
    #: transaction checks is the one stored (``store._PostgresWriter``: a head this process
    #: held that the store does not is refused, never chained onto)
    follows: bytes | None = field(default=None, compare=False)


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


def what_if(header: Any, position: int) -> bool:
    """Whether event ``position`` of a stream with this header is a branch's own, past where it
    left its parent: the judge's what-if, played from a board whose hidden cards are its
    parent's. ``seen`` gives it no card event: its Axe of Despair equipped from Kaiba's hand is a
    card the duel it branched from keeps in his hand (ZONE-12), and a search is a spectator's
    (``LiveDuel.branch_cut``: the branch's spectators see it only once its parent released what
    it hid, which a search never follows)."""
    parent, at = getattr(header, "parent", None), getattr(header, "branch_at", None)
    return bool(parent) and position >= (at or 0)


@functools.cache
def _views() -> tuple[Callable[[str, Any], bool], Callable[..., bool]]:
    """``views.can_see`` and ``views.flag_seen``, imported by the first write that asks (a store
    opened only to read, ``show --at N``, needs no views), not by an import statement at every
    append."""
    from .views import can_see, flag_seen
    return can_see, flag_seen


def seen(event: Event, fold: Any, negated: str | None, at: int, judges: bool = False) -> Seen:
    """The spectator's card events of ``event`` just applied to ``fold`` (``before`` gave
    ``negated``; ``at`` its recording time in milliseconds): a card counts only when the
    spectator may know it there (``can_see``) or the event shows it to everyone (an activation),
    and the record knows its passcode; a flag only where the spectator's own fold flags it too
    (``views.flag_seen``); no card event, flag nor rollback of a branch's what-if (``judges``,
    ``what_if``)."""
    can_see, flag_seen = _views()
    state = fold.state
    turn = int(getattr(state, "turn", 0) or 0)
    kind = event.kind
    if kind == "match_started":
        return Seen(turn, at, meta={"event": event.event_name or None, "format": event.format or None,
                                    "banlist": event.banlist or None,
                                    "round": str(event.round) if event.round is not None else None})
    if judges:
        return Seen(turn, at)
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
    # the badge is the spectator's: a flag its own fold decides too (``views.flag_seen``), never
    # the record's verdict on a card the spectator does not see
    flagged = bool(flags) and flags[-1].index == fold.position - 1 and flag_seen(fold, event, "spectator")
    return made(Seen, turn=turn, at=at, cards=tuple(dict.fromkeys(out)), flagged=flagged, back_to=None,
                rollback=False, meta=None)


def _moved(note: Callable[..., None], card: Any, card_id: str) -> None:
    if card is not None and card.zone == GY:
        note("sent_to_gy", card_id)
    elif card is not None and card.zone == BANISHED:
        note("banished", card_id)


# -- writing -------------------------------------------------------------------------------------


class Index:
    """The library index of one store: its tables' names, and the rows it adds to a write."""

    def __init__(self, backend: str, events_table: str, schema: str | None = None,
                 signer: Callable[[], Any] | None = None, holder: Callable[[], Any] | None = None) -> None:
        self.backend = backend
        # the organiser's private key, which keys every row (``tag``): ``signer`` gives it to a
        # write (made if need be, as the write's anchors are signed with it), ``holder`` to a read
        # (None when this process holds only public keys)
        self._signer, self._holder = signer, holder
        self._genuine: set[tuple] = set()          # rows whose tag held, by their exact values
        self._verdicts: dict[str, tuple[tuple, Any, bool]] = {}     # ``vouched``'s, by stream
        self.keyed = False                 # the index's own tag (``library_meta``) held for this key
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

    def tag(self, *values: Any) -> bytes:
        """The tag of one row of the index (its table's name and values, in a fixed order): an
        HMAC under the organiser's private key, which a writer to the database without that key
        cannot make. What a search shows of a row is shown only when its tag holds (``genuine``)."""
        assert self._signer is not None
        return self._signer().mac(_TAG_LABEL + msgpack.packb(values))[:_TAG_BYTES]

    def genuine(self, tag: Any, *values: Any) -> bool:
        """Whether ``tag`` is the tag of a row of these values. Kept by the exact values and tag
        (a row a search reads again is not checked again), as ``Store.listed`` keeps its decisions."""
        if not isinstance(tag, (bytes, memoryview)):
            return False
        kept = (bytes(tag), *values)
        if kept in self._genuine:
            return True
        key = self._holder() if self._holder is not None else None
        if key is None or not hmac.compare_digest(key.mac(_TAG_LABEL + msgpack.packb(values))[:_TAG_BYTES], kept[0]):
            return False
        if len(self._genuine) >= _GENUINE_KEPT:
            self._genuine.clear()
        self._genuine.add(kept)
        return True

    def settings_vouched(self, stream: str, row: Mapping[str, Any], release: str | None, prefix: str = "") -> bool:
        """Whether a stream's match settings (event, round, format, banlist: ``prefix``ed in
        ``row``) are the ones its events gave it, under their tag, its event the release
        policy's (``release``, from its access attachment) when it names one."""
        meta = tuple(row[f"{prefix}{name}"] for name in ("meta_event", "round", "format", "banlist"))
        tag = row[f"{prefix}meta_mac"]
        if (tag is None and meta != (None, None, None, None)
                or tag is not None and not self.genuine(tag, "streams", stream, "meta", *meta)):
            return False
        return row[f"{prefix}event"] == (release or meta[0])

    def vouched(self, row: Mapping[str, Any], found: Any, access: bytes | None, link: bytes | None) -> bool:
        """Whether a stream's row (``library_streams``' columns, ``row``) is the one this index
        writes of what is vouched for: the header and the last anchor's status its signed anchors
        vouch for (``found``: ``Store.listed``'s ``Vouched``), its ``access`` and ``match_game``
        attachments as stored (the rows the service reads them from; None: none), and the facts
        of its events the row keeps (match settings, first flag, first rollback) under their
        tags. A row altered in the database is not: every column a search filters or shows is one
        of these. Kept by stream with the exact values it was decided on, and the decision of
        ``listed`` it was checked against (the same object while its rows' bytes are the same):
        a page of 100 rows checked anew was two thirds of a search's CPU."""
        stream = row["id"]
        key = (*_vouched_values(row), access, link)
        kept = self._verdicts.get(stream)
        if kept is not None and kept[1] is found and kept[0] == key:
            return kept[2]
        verdict = self._vouched(row, found.header.to_dict(), found.status, access, link)
        if len(self._verdicts) >= _GENUINE_KEPT:
            self._verdicts.clear()
        self._verdicts[stream] = (key, found, verdict)
        return verdict

    def _vouched(self, row: Mapping[str, Any], header: Mapping[str, Any], status: Mapping[str, Any],
                 access: bytes | None, link: bytes | None) -> bool:
        stream = row["id"]
        settings = access_columns(access)
        expected = {**header_columns(header), **status_columns(status), "visibility": settings["visibility"],
                    "delay_events": settings["delay_events"], "delay_ms": settings["delay_ms"],
                    "witnessed": int(bool(status.get("witnessed")) or settings["witnessed"]),
                    "match": str(msgpack.unpackb(link).get("id")) if link is not None else None}
        if any(row[name] != value for name, value in expected.items()):
            return False
        if not self.settings_vouched(stream, row, settings["release"]):
            return False
        return all(row[column] is None and row[tag] is None or row[column] is not None
                   and self.genuine(row[tag], "streams", stream, name, row[column])
                   for column, tag, name in (("first_flag", "flag_mac", "flag"),
                                             ("first_rollback", "rollback_mac", "rollback")))

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
            self._rows(cursor, "marks", ("stream", "position", "at", "turn", "mac"),
                       ("text", "int4", "int8", "int4", "bytea"), [(*row, self.tag("marks", *row)) for row in marks])
        if cards:
            self._rows(cursor, "cards", ("code", "action", "turn", "stream", "position", "side", "mac"),
                       ("int8", "text", "int4", "text", "int4", "int4", "bytea"),
                       [(*row, self.tag("cards", *row)) for row in cards])

    def _rows(self, cursor: Any, table: str, columns: tuple[str, ...], types: tuple[str, ...],
              rows: list[tuple]) -> None:
        """Rows inserted into one of the index's tables (a row already there is kept). On
        PostgreSQL one statement of one array a column, however many rows: ``executemany`` in a
        pipeline is a statement a row, ~15 of them a group commit of 60 appends (issue 25)."""
        names = ", ".join(columns)
        if self.backend == "postgresql":
            insert = f"INSERT INTO {getattr(self, table)} ({names}) SELECT * FROM unnest({{}}) ON CONFLICT DO NOTHING"
            values = [list(column) for column in zip(*rows)]
            if not isinstance(cursor, pg_pipeline.Statements):
                cursor.execute(insert.format(", ".join(f"%s::{kind}[]" for kind in types)), values, prepare=True)
                return
            # a store's write: the arrays sent as built (psycopg's dumper of lists made a group's 40
            # card rows ready in 1.1–1.5 ms, these in 0.11–0.16: issue 25)
            arrays = [pg_pipeline.typed_array(kind, column) for kind, column in zip(types, values)]
            cursor.execute(insert.format(", ".join(f"%s::{kind}[]" for kind in types)), values, prepare=True,
                           binary=(insert.format(", ".join(f"${n}::{kind}[]" for n, kind in enumerate(types, 1))).encode(),
                                   tuple(oid for oid, _array in arrays), [array for _oid, array in arrays]))
            return
        cursor.executemany(f"INSERT INTO {getattr(self, table)} ({names}) VALUES ({', '.join('?' * len(columns))}) "
                           "ON CONFLICT DO NOTHING", rows)

    def _header(self, cursor: Any, stream: str, state: bytes) -> None:
        columns = header_columns(msgpack.unpackb(state)["header"])
        cursor.execute(self.sql(
            "INSERT INTO {streams} (id, kind, title, created, created_ms, parent, imported, signed, verified) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, "
            "title = excluded.title, created = excluded.created, created_ms = excluded.created_ms, "
            "parent = excluded.parent, imported = excluded.imported, signed = excluded.signed, "
            "verified = excluded.verified"), (stream, *columns.values()))

    def _access(self, cursor: Any, stream: str, state: bytes) -> None:
        settings = access_columns(state)
        if settings["delay_events"] or settings["delay_ms"]:
            self.delayed.add(stream)
        else:
            self.delayed.discard(stream)
        # the event: the release policy's, else the match's settings' (``vouched`` expects the same)
        cursor.execute(self.sql(
            "UPDATE {streams} SET visibility = ?, delay_events = ?, delay_ms = ?, event = coalesce(?, meta_event), "
            "witnessed = CASE WHEN ? THEN 1 ELSE witnessed END WHERE id = ?"),
            (settings["visibility"], settings["delay_events"], settings["delay_ms"], settings["release"],
             settings["witnessed"], stream))

    def _head(self, cursor: Any, stream: str, row: StoredEvent, appended: int) -> None:
        if isinstance(row, HeadRow) and row.status is not None:
            count, status = row.originator_version, row.status
        else:
            head = msgpack.unpackb(row.state)
            count, status = int(head.get("n", 0)), head.get("status") or {}
        columns = status_columns(status, keys=False)
        # Written only when it changes (a new turn, the end, the players named): most appends change
        # none of it, and write no page of the index. The length is the anchor's own row (``heads``).
        values = (columns["turn"], columns["ended"], columns["winner"], columns["reason"],
                  int(bool(status.get("witnessed"))), columns["p0"], columns["p1"])
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
            (*values, normal_name(columns["p0"]), normal_name(columns["p1"]), stream, *values))

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
            cursor.execute(self.sql("INSERT INTO {rollbacks} (stream, position, back_to, mac) VALUES (?, ?, ?, ?) "
                                    "ON CONFLICT DO NOTHING"),
                           (stream, position, seen_.back_to, self.tag("rollbacks", stream, position, seen_.back_to)))
        if seen_.flagged or seen_.rollback:  # set once, each with its own tag (``vouched``)
            column, name = ("first_flag", "flag") if seen_.flagged else ("first_rollback", "rollback")
            cursor.execute(self.sql(f"UPDATE {{streams}} SET {column} = coalesce({column}, ?), {name}_mac = "
                                    f"CASE WHEN {column} IS NULL THEN ? ELSE {name}_mac END WHERE id = ?"),
                           (position, self.tag("streams", stream, name, position), stream))
        if seen_.meta:
            meta = (seen_.meta.get("event"), seen_.meta.get("round"), seen_.meta.get("format"),
                    seen_.meta.get("banlist"))
            cursor.execute(self.sql("UPDATE {streams} SET meta_event = ?, event = coalesce(event, ?), round = ?, "
                                    "format = ?, banlist = ?, meta_mac = ? WHERE id = ?"),
                           (meta[0], meta[0], *meta[1:], self.tag("streams", stream, "meta", *meta), stream))


def header_columns(header: Mapping[str, Any]) -> dict[str, Any]:
    """What the index keeps of a stream's header (its stored dict): its kind, title, creation
    time, parent, and how it came to be (the badges imported, signed, verified-origin)."""
    source, provenance = header.get("source") or {}, header.get("provenance") or {}
    imported = bool(provenance.get("imported") or source.get("sha256"))
    signed = not imported or bool(provenance.get("signed_by"))
    verified = imported and bool(provenance.get("trusted")) and source.get("unverified") is not True
    created = str(header.get("created") or "")
    return {"kind": str(header.get("kind", "duel")), "title": str(header.get("title") or ""), "created": created,
            "created_ms": _ms(created), "parent": header.get("parent"), "imported": int(imported),
            "signed": int(signed), "verified": int(verified)}


def status_columns(status: Mapping[str, Any], keys: bool = True) -> dict[str, Any]:
    """What the index keeps of the status an anchor signs: turn, result, the players (and, with
    ``keys``, their names as a search compares them: an append that writes no row needs none)."""
    players = [str(p) for p in (status.get("players") or [])][:2] + ["", ""]
    winner = status.get("winner")
    columns = {"turn": int(status.get("turn") or 0), "ended": int(bool(status.get("ended"))),
               "winner": winner if isinstance(winner, int) else None,
               "reason": status.get("reason") or status.get("how"), "p0": players[0], "p1": players[1]}
    if keys:
        columns.update(p0_key=normal_name(players[0]), p1_key=normal_name(players[1]))
    return columns


def access_columns(access: bytes | None) -> dict[str, Any]:
    """What the index keeps of a stream's access attachment, from its stored row (None: it has
    none, and is private): visibility, delay, the release policy's event, witnessed."""
    if access is None:
        return {"visibility": "private", "delay_events": 0, "delay_ms": 0, "release": None, "witnessed": False}
    access = msgpack.unpackb(access)
    delay = access.get("delay") or {}
    release = access.get("release") or {}
    return {"visibility": str(access.get("visibility", "unlisted")), "delay_events": int(delay.get("events", 0)),
            "delay_ms": int(float(delay.get("seconds", 0)) * 1000), "release": release.get("event") or None,
            "witnessed": access.get("mode") == "witnessed"}


def held_key(store: Any) -> None:
    """StoreError unless this process holds the organiser's private key, which keys the index's
    rows (``Index.tag``) and checks each a search reads (``genuine``): without it no row is
    checked, and under another key every row would be left out."""
    if store.index_key() is None:
        raise StoreError(say("the library index of {name} is checked with the organiser's private key, "
                             "which this process does not hold (set YGOREPLAY_KEY to its file)",
                             name=store.name))


def _ms(iso: str) -> int:
    try:
        return to_ms(iso)
    except (ValueError, TypeError):
        return 0


# -- the store's side: the hook, and building the index of a store made before it ------------------


def index_of(store: Any) -> Index:
    """The library index of ``store``'s tables, not read yet (``install`` makes it written), its
    rows keyed by the store's organiser key."""
    recorder = store.events
    return Index(store.backend, recorder.events_table_name, getattr(recorder.datastore, "schema", None),
                 signer=lambda: store.key, holder=store.index_key)


def install(store: Any, index: Index, folds: Mapping[str, Any], downgrade: bool = False) -> None:
    """Make every write of ``store``'s recorder write its ``index`` rows in the same transaction;
    on a writable store whose index is missing or older, build it first from what the store
    holds (``folds``: the store's stream kinds by name, to fold each stream as its appends do).
    One a newer version built is never dropped unless ``downgrade`` (``rebuild``)."""
    recorder = store.events        # (only a writable store installs it: ``Store.__init__``)
    index.ready = built(store, index)
    if not index.ready:
        rebuild(store, index, folds, force=downgrade)
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
    return found_version(store, index) == VERSION


def found_version(store: Any, index: Index) -> int | None:
    """The version of ygoreplay's index the store holds (None: none)."""
    try:
        with store.events.datastore.transaction(commit=False) as cursor:
            cursor.execute(index.sql("SELECT max(version) AS v FROM {meta}"))
            row = cursor.fetchone()
    except Exception:                  # no table yet: either backend's error, its transaction rolled back
        return None
    return None if row is None else row["v"]


def newer(name: str, found: int) -> StoreError:
    """An index a newer ygoreplay built, which this one neither reads nor drops by itself: two
    versions writing one store in turn each dropped the other's and built its own, every time
    (minutes on a large library)."""
    return StoreError(say("the library index of {name} was built by a newer ygoreplay (index version {found}; "
                          "this one makes version {version}): use that version with this store; to go back to "
                          "this one for good, run 'ygoreplay search --reindex' (it rebuilds the index, and the newer "
                          "version would rebuild it again)", name=name, found=found, version=VERSION))


def rebuild(store: Any, index: Index, folds: Mapping[str, Any], force: bool = True) -> int:
    """The index made anew from every stream the store holds, in one transaction: each stream
    folded from its start, its rows given to ``Index.write`` as an append gives them. How many
    streams. Processes opening a store at once build it once: the first holds the store's write
    lock (PostgreSQL: an advisory lock) and the others, unless ``force``d, find it built. An
    index a newer version built is refused (``newer``) unless ``force``d."""
    with store.events.datastore.transaction(commit=True) as cursor:
        if index.backend == "postgresql":
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"{index.schema}.library",))
        cursor.execute(_META.format(s=index.prefix, **_DIALECTS[index.backend]))
        cursor.execute(index.sql("SELECT max(version) AS v FROM {meta}"))
        found = cursor.fetchone()["v"]
        if found == VERSION and not force:
            return 0
        if found is not None and found > VERSION and not force:
            raise newer(store.name, found)
        if found != VERSION:                         # made by another version: its tables go
            for table in ("text", "cards", "marks", "rollbacks", "streams", "meta"):
                if index.backend == "sqlite" or table != "text":
                    cursor.execute(f"DROP TABLE IF EXISTS {index.streams.replace('streams', table)}")
        index.create(cursor)
        for table in (index.cards, index.marks, index.rollbacks, index.streams, index.meta):
            cursor.execute(f"DELETE FROM {table}")
        streams = store.header_rows(list(_HEADERS))    # no stream is added meanwhile (the write lock)
        for stream_id, header in streams:
            index.write(cursor, _replayed(store, stream_id, header, folds))
        cursor.execute(index.sql("INSERT INTO {meta} (version, mac) VALUES (?, ?)"),
                       (VERSION, index.tag("meta", VERSION)))
    return len(streams)


#: Each table ``check`` compares, its columns (a stream's id first), and whether a row it lacks
#: is missing (a stream delayed after some events has no marks for them: ``Index._event``).
_CHECKED = (("streams", "id, kind, title, created, created_ms, parent, match, p0, p1, p0_key, p1_key, event, round, "
                        "format, banlist, imported, signed, verified, witnessed, visibility, delay_events, delay_ms, "
                        "turn, ended, winner, reason, first_flag, first_rollback, meta_event, meta_mac, flag_mac, "
                        "rollback_mac", True),
            ("cards", "stream, code, action, turn, position, side, mac", True),
            ("rollbacks", "stream, position, back_to, mac", True),
            ("marks", "stream, position, at, turn, mac", False))


def check(store: Any, index: Index, folds: Mapping[str, Any]) -> dict[str, list[str]]:
    """What the index holds that a build of it from what the store vouches for does not, and
    what it lacks: by stream, the tables it differs in (``"cards: 2 missing"``). A search leaves
    out a row inserted or altered (its tag, or what it is checked against, does not hold) but
    cannot know of a row deleted: this finds it, and ``rebuild`` (``search --reindex``) puts it
    back. The build is made in temporary tables of the read's own connection, folding every
    stream (``_replayed``), and dropped after."""
    held_key(store)
    temp = "temp." if index.backend == "sqlite" else "pg_temp."
    shadow = Index(index.backend, "", None, signer=store.index_key)
    shadow.streams, shadow.marks, shadow.cards, shadow.rollbacks = (
        f"{temp}library_check_{t}" for t in ("streams", "marks", "cards", "rollbacks"))
    found: dict[str, list[str]] = {}
    with store.events.datastore.transaction(commit=False) as cursor:
        for statement in _COMMON:
            if statement.startswith("CREATE TABLE"):
                cursor.execute(statement.format(s=temp, **_DIALECTS[index.backend])
                               .replace(f"{temp}library_", f"{temp}library_check_"))
        try:
            for stream_id, header in store.header_rows(list(_HEADERS)):
                shadow.write(cursor, _replayed(store, stream_id, header, folds))
            for table, columns, lacking in _CHECKED:
                stored, built_ = getattr(index, table), getattr(shadow, table)
                ways = ((stored, built_, "not vouched"),) + (((built_, stored, "missing"),) if lacking else ())
                for first, second, what in ways:
                    cursor.execute(f"SELECT {columns.partition(',')[0]} AS stream, count(*) AS n FROM "
                                   f"(SELECT {columns} FROM {first} EXCEPT SELECT {columns} FROM {second}) x "
                                   f"GROUP BY {columns.partition(',')[0]}")
                    for row in cursor.fetchall():
                        found.setdefault(row["stream"], []).append(f"{table}: {row['n']} {what}")
        finally:
            for table in ("streams", "marks", "cards", "rollbacks"):
                cursor.execute(f"DROP TABLE IF EXISTS {temp}library_check_{table}")
    return dict(sorted(found.items()))


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
                             seen(event, fold, negated, to_ms(record.recorded), what_if(vouched, record.position))))
    count = len(records)
    rows += store.events.select_events(f"{stream_id}/head", gt=count - 1, lte=count)
    return rows
