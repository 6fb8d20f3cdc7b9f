"""What a store holds: its constants, the rows' shapes (``Header``, ``Head``, ``Record``...), the stream
kinds, and the checks and caches of stored bytes a read and a write share."""
from __future__ import annotations

import zlib
import time
import threading
import re
import os
from collections import namedtuple
from dataclasses import field, replace
from typing import TYPE_CHECKING

import msgpack

from .. import chain, signing
from ..cards import CardDB, CardFacts
from ..digests import sha256
from ..errors import InputError, StoreError
from ..files import data_folder, path_text
from ..i18n import N_, say
from ..lazy_dataclass import dataclass
from ..rules import History

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Callable, NoReturn

    from eventsourcing.persistence import StoredEvent

    from ..events import Event
    from ..signing import OrganiserKey, PublicKey


ENV_VAR = "YGOREPLAY_STORE"


FORMAT = 2


SNAPSHOT_EVERY = 16


#: The most a deflated snapshot is inflated to: a duel's state is some 10 KB, a long one's 100s of KB.
MAX_SNAPSHOT = 64 << 20


HEADER_TOPIC, CARDS_TOPIC, HEAD_TOPIC = "ygoreplay:duel", "ygoreplay:cards", "ygoreplay:head"


#: A stream's access record (``Store.attach(stream, "access", ...)``: its visibility, tokens and
#: release), which the heads' subscription hands on with the anchors as ``("<stream>/access",
#: version)``: a change of it made by any process (another worker, the command line, a match's
#: link) reaches every worker's hub as an append does (``live.Hub._heard``), which reads it again.
ACCESS_TOPIC = "ygoreplay:access"


#: The most bytes of heads a write's NOTIFY says (PostgreSQL takes < 8,000): a write of more heads
#: notifies saying none, and each listener reads them (``_Heads``).
HEADS_SAID = 7800


#: A heads NOTIFY's first line, with the schema its store is in: PostgreSQL's channels are the
#: database's, not a schema's, so a store in another schema (the same table names) is heard too,
#: and its heads, counted by its own notification ids, are not this store's.
HEADS_MARK = "ygoreplay-heads "


MATCH_TOPIC = "ygoreplay:match"


SNAPSHOT_TOPIC, STORE_TOPIC = "ygoreplay:snapshot", "ygoreplay:store"


STORE_ID = "ygoreplay/store"


#: An append written at a head another writer moved: what to do about it, not only what happened
#: (a scorekeeper's script, told "someone else appended", sent the same entries again, 409 again).
_BEHIND = N_("duel {duel_id} has {start} events, not {expected_position}: someone else appended; nothing was "
             "written: read what they entered, then send yours again expecting {start} if it still stands")


_HEAD_LABEL, _SNAPSHOT_LABEL = b"ygoreplay/head/2\0", b"ygoreplay/snapshot/2\0"


#: What a group commit's one signature is over: this and the root of its anchors' tree (``Head``),
#: whose leaves are its anchors' messages and its appends' receipts' (``Store.receipt_proof``).
_GROUP_LABEL = b"ygoreplay/head-group/1\0"


#: The most receipt proofs a store keeps for their appends' callers to take (``Store.receipt_proof``).
_PROOFS_KEPT = 4096


_STREAM_ID = re.compile(r"[0-9a-f]{12}\Z")          # new_id()'s: only such a prefix is looked up whole


#: A PostgreSQL schema's name: lower case (the recorder looks its composite type up by the name
#: unquoted, which PostgreSQL folds to lower case: a capital made the schema, then refused every write).
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")


#: The tables of a store on SQLite: its events' and its snapshots' (``eventsourcing``'s SQLite
#: recorders' names: ``_check_sqlite`` finds both before a store is opened).
_SQLITE_EVENTS, _SQLITE_SNAPSHOTS = "stored_events", "stored_snapshots"


_SQLITE_TABLES = {_SQLITE_EVENTS, _SQLITE_SNAPSHOTS}


_POSTGRES_TABLES = {"ygoreplay_events", "ygoreplay_snapshots"}


#: Card facts (with their effect facts) and their digests by duel, with the exact bytes of the
#: card records they were read from: a seek reads the records on every call, and validating ~70
#: of them each time was nearly half of it (issue 25); the same bytes are the same facts. Kept by
#: duel and compared in full, not by the bytes as a key: hashing them was 1% of a seek. CardDB is
#: immutable.
_CARD_FACTS: dict[str, tuple[tuple[bytes, ...], tuple[CardDB, bytes, bytes | None]]] = {}


_CARD_FACTS_KEPT = 256


_CARD_FACTS_GUARD = threading.Lock()


#: The facts of a card record's entries, by each entry's exact msgpack bytes (``_card_facts``):
#: the duels of a store share most of their cards, and validating each again on a duel's first
#: seek in a process was a twentieth of showing its board (issue 25). Bytes that differ in any
#: way (a type, a value, an order) are another key, read and validated afresh. CardFacts is frozen.
_ENTRY_FACTS: dict[bytes, CardFacts] = {}


_ENTRY_FACTS_KEPT = 16384


#: Snapshots whose signature (or MAC) held, by (duel, position, digest of the stored row, whether
#: checked by a holder of the private key): a signature that held once holds on the same bytes, in
#: any Store of this process (the service and a board open a Store per request; checking it again
#: was a fifth of a seek). Whether its key is trusted is still asked of each Store; and a MAC
#: vouches only to a holder of the key: a Store that holds only the public key checks the
#: signature of what a holder took by its MAC, as a process of its own would.
_SIGNED: set[tuple[str, int, bytes, bool]] = set()


_SIGNED_KEPT = 65536


#: Anchors whose signature (or MAC) held, by (duel, count, digest of the stored row), as ``_SIGNED``:
#: a seek checks the anchor at or after its position and the last one (issue 25).
_ANCHORED: set[tuple[str, int, bytes, bool]] = set()


#: Anchors whose signature (or MAC) held, decoded, by (duel, version, digest of the stored row):
#: every seek of a duel checks its last anchor, and decoding it again was most of that check
#: (issue 25). Another row's bytes are another key: decoded and checked afresh. A Head is frozen
#: and its ``status`` is never changed by its readers.
_HEADS: dict[tuple[str, int, bytes], Head] = {}


#: Header rows found to be the header a signed anchor names, by (duel, digest of the row, the
#: digest the anchor names): a seek checks its duel's header (``Store._header_named``).
_NAMED: set[tuple[str, bytes, bytes]] = set()


#: A stream's last row (of ``{heads}``, the id a parameter) as part ``{part}`` of a statement of parts.
_LAST_OF = ("SELECT {part} AS part, originator_version, topic, state FROM (SELECT originator_version, topic, "
            "state FROM {heads} WHERE originator_id = ? ORDER BY originator_version DESC LIMIT 1) AS p{part}")


#: Each wanted stream's (``w``) last row of ``{heads}`` whose id is its own and ``{suffix}``, as part
#: ``{part}`` of ``Store._heads_query``.
_LAST_OF_EACH = ("SELECT w.i, {part} AS part, l.originator_version, l.topic, l.state FROM w CROSS JOIN LATERAL "
                 "(SELECT originator_version, topic, state FROM {heads} WHERE originator_id = w.id{suffix} "
                 "ORDER BY originator_version DESC LIMIT 1) AS l")


#: streams ``Store.listed`` reads in one statement (their ids one bound value)
_LISTED_AT_ONCE = 20000


#: streams whose ``Store.listed`` decision a Store keeps (with the rows' bytes, ~600 a stream):
#: more than a library of 100,000 duels names, once full a new one is decided each time (kept
#: ones are replaced, as an anchor is by an append); never cleared, so a read of more streams
#: than this decides again only those past it, not every one
_LISTED_KEPT = 131072


#: ``committed`` marks a Store keeps ``listed``'s decisions by: one a SQLite connection of its pool
_MARKS_KEPT = 8


#: SQLite files (device, inode, change time) found to hold a store of this format: opened again
#: in this process (a board per request), the marker is not read again on a connection of its own;
#: True once found fit for writing too (its triggers are the library index's: ``own_schema``).
_STORE_FILES: dict[tuple[int, int, int], bool] = {}


#: A bound past every version: a bound given by a subquery that finds nothing (a constant, so the
#: index answers the range; a bound naming the column read the rest of the duel).
_NO_END = (1 << 63) - 1


_NO_FACTS = CardDB()                 # what an append adds when it names no card its duel lacks


#: The kinds of stream as a store's errors name them ("no match 'ab12' in ..."): catalogued, so
#: ``i18n.said`` translates them inside the sentence.
STREAM_NAMES = (N_("duel"), N_("match"), N_("stream"))


class MissingStore(StoreError):
    """There is no store at the URL (and it was not to be created)."""

    def __init__(self, name: str) -> None:
        super().__init__(say("no store at {name} (record or import a duel to create one)", name=name))
        self.name = name


def new_id() -> str:
    """A new stream id: 12 hex digits, 6 random bytes."""
    return os.urandom(6).hex()


def default_store_path() -> Path:
    """Where the embedded SQLite store lives unless ``--store`` or $YGOREPLAY_STORE says otherwise."""
    from pathlib import Path
    return Path(path_text(data_folder(), "duels.sqlite"))


def _digest(data: Any) -> bytes:
    return sha256(msgpack.packb(data)).digest()


class AlteredRow(StoreError):
    """A row the database holds of a type no write of ours makes (a TEXT where a record is): the
    database was written to. ``what`` names the row; the advice to run ``verify`` is added only
    for the commands that meet it, as ``Store.verify`` reports the row itself (BROKEN, exit 1)."""

    def __init__(self, what: str, stream_id: str) -> None:
        self.what, self.duel = what, stream_id.partition("/")[0]
        super().__init__(say("{what}: the database was written to; run 'ygoreplay verify {duel}' to see "
                             "what else of the duel was altered",
                             what=what, duel=self.duel))


def _version(version: object, stream_id: str) -> int:
    """A row's version, refused naming the stream when writing to the database made it other
    than an integer (SQLite keeps a TEXT in an INTEGER column)."""
    if type(version) is not int:
        raise AlteredRow(say("a row of stream {stream_id} has the version {version!r} ({name}), not a "
                             "number",
                             stream_id=stream_id, version=str(version)[:40], name=type(version).__name__), stream_id)
    return version


def _blob(state: object, version: object, stream_id: str, snapshot: bool = False) -> bytes:
    """A row's state as bytes, checked before anything decodes or copies it: the one check of
    every row read from the store's tables (the recorders' reads, ``_checking``, and our own
    statements'). One that writing to the database made a TEXT, an INTEGER (``bytes(n)`` would be
    n zero bytes) or a REAL is refused naming the row (``AlteredRow``), never turned into a
    traceback. A snapshot's is no record (b""), so it is not used and ``verify`` says it cannot
    be decoded, as of any snapshot that does not check out. ``version`` None: a stream's last
    row, read by a statement that does not read its version (``row_state``)."""
    if version is not None:
        _version(version, stream_id)
    if type(state) is bytes:
        return state
    if isinstance(state, (bytearray, memoryview)):     # PostgreSQL's bytea, as psycopg reads it
        return bytes(state)
    if snapshot:
        return b""
    held = type(state).__name__
    if version is None:
        raise AlteredRow(say("the last row of stream {stream_id} is not a stored record (the database holds "
                             "{held} there)", stream_id=stream_id, held=held), stream_id)
    raise AlteredRow(say("row {version} of stream {stream_id} is not a stored record (the database holds "
                         "{held} there)", version=version, stream_id=stream_id, held=held), stream_id)


def row_state(state: object, stream_id: str) -> bytes | None:
    """The state of a stream's last row as a statement of another module read it (the library
    search's attachments), checked as every row is (``_blob``); None: the stream has no row."""
    return None if state is None else _blob(state, None, stream_id)


def _checking(select: Callable[..., list], snapshots: bool = False) -> Callable[..., list]:
    """A recorder's ``select_events`` or ``select_notifications`` whose rows are checked by
    ``_blob``: eventsourcing's SQLite recorder passes on whatever the driver returned. A row
    refused raises ``AlteredRow``, unless the caller passes ``refused`` (a dict): then the row
    is kept with no record (b"") and its refusal put there by its index among the rows, for a
    caller that goes on past it (``Store.verify``, a listing)."""
    def checked(*args: Any, refused: dict[int, AlteredRow] | None = None, **kwargs: Any) -> list:
        rows = select(*args, **kwargs)
        for i, row in enumerate(rows):
            if type(row.state) is not bytes or type(row.originator_version) is not int:
                try:
                    rows[i] = replace(row, state=_blob(row.state, row.originator_version, str(row.originator_id),
                                                       snapshots))
                except AlteredRow as exc:
                    if refused is None:
                        raise
                    refused[i] = exc
                    rows[i] = replace(row, state=b"")
        return rows
    return checked


def _chained(digest: bytes | None, data: Any) -> bytes:
    """The digest of a duel's card or effect facts after one more record of them."""
    return sha256((digest or chain.GENESIS) + msgpack.packb(data)).digest()


def _keep_card_facts(duel_id: str, stored: tuple[bytes, ...], found: tuple[CardDB, bytes, bytes | None]) -> None:
    """Keep ``found`` as the facts of the card records ``stored`` (``_CARD_FACTS``)."""
    with _CARD_FACTS_GUARD:
        _CARD_FACTS.pop(duel_id, None)          # kept newest last: the oldest go first
        _CARD_FACTS[duel_id] = (stored, found)
        while len(_CARD_FACTS) > _CARD_FACTS_KEPT:
            del _CARD_FACTS[next(iter(_CARD_FACTS))]


def _card_facts(entry: Any) -> CardFacts:
    """``CardFacts.from_dict`` of one entry of a card record, once per exact encoding of it in
    this process (``_ENTRY_FACTS``); CardDBError as that for an entry it refuses."""
    key = msgpack.packb(entry)
    found = _ENTRY_FACTS.get(key)
    if found is None:
        found = CardFacts.from_dict(entry)
        if len(_ENTRY_FACTS) >= _ENTRY_FACTS_KEPT:
            _ENTRY_FACTS.clear()
        _ENTRY_FACTS[key] = found
    return found


@dataclass(frozen=True)
class Header:
    """What the store keeps about a duel besides its events."""

    title: str
    created: str
    root: bytes                      # the chain starts here
    secret: bytes                    # keys the views' commitments and card names
    parent: str | None = None
    branch_at: int | None = None
    source: dict = field(default_factory=dict)     # where the record came from (exported with it)
    provenance: dict = field(default_factory=dict)  # how it came into this store (kept here only)
    kind: str = "duel"               # the stream's kind (``StreamKind.name``)

    def to_dict(self) -> dict:
        out = {"format": FORMAT, "title": self.title, "created": self.created, "root": self.root,
               "secret": self.secret, "parent": self.parent, "branch_at": self.branch_at,
               "source": self.source, "provenance": self.provenance}
        if self.kind != "duel":          # a duel's header (and so its digest) is as it always was
            out["kind"] = self.kind
        return out

    @property
    def digest(self) -> bytes:
        return _digest(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "Header":
        if d.get("format") != FORMAT:
            raise ValueError(f"header format {d.get('format')!r}, not {FORMAT}")
        header = cls(str(d["title"]), str(d["created"]), d["root"], d["secret"], d["parent"],
                     d["branch_at"], dict(d["source"]), dict(d["provenance"]), str(d.get("kind", "duel")))
        if not (isinstance(header.root, bytes) and len(header.root) == 32
                and isinstance(header.secret, bytes) and len(header.secret) == 32):
            raise ValueError("root and secret are 32 bytes")
        return header


def _head_message(duel_id: str, count: int, hash: bytes, header: bytes, cards: bytes, status: dict,
                  effects: bytes | None, pack: Callable[[object], bytes] = msgpack.packb) -> bytes:
    """What an anchor signs (``Head.message``): an append signs it before its ``Head`` is made
    (``pack``: ``chain.packer``'s, the appending thread's own)."""
    signed = [duel_id, count, hash, header, cards, status]
    # an anchor of a duel without effect facts signs what anchors always signed
    return _HEAD_LABEL + pack(signed if effects is None else [*signed, effects])


_CLOCK: tuple[int, str] = (-1, "")     # the second of the last append's time, and its text


def _now() -> tuple[str, int]:
    """An append's recording time: ``chain.now()``'s text and its milliseconds (``chain.to_ms``),
    the second's text made once a second (a datetime made, formatted and parsed again was a
    tenth of an append's own work beside its signature: issue 25)."""
    global _CLOCK
    ms = time.time_ns() // 1_000_000
    second, milli = divmod(ms, 1000)
    at, text = _CLOCK
    if at != second:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _CLOCK = (second, text)
    return f"{text}.{milli:03d}+00:00", ms


@dataclass(frozen=True)
class Head:
    """A duel's anchor after one append: how many events, the last hash, and what it signs.

    Signed alone (``path`` None: a lone append, and every anchor written before groups were) or
    with the anchors of its group commit (issue 25: one signature a group, not one an append):
    then ``signature`` is over the root of a Merkle tree of the group's messages
    (``_GROUP_LABEL``, ``signing.tree``) and ``path``/``left`` are its audit path to that root.
    Stored anchors without them are read as signed alone (``from_dict``). Whether it holds is
    asked of ``signed_by`` only, wherever an anchor is checked: no other way in skips the path."""

    count: int
    hash: bytes
    header: bytes                    # the header's digest
    cards: bytes                     # the card facts' digest
    status: dict                     # players, turn, LP, result: what ``list`` shows
    key: bytes                       # the signer's public key
    signature: bytes
    effects: bytes | None = None     # the effect facts' digest; None while the duel has none
    mac: bytes | None = None         # ``OrganiserKey.mac`` of ``message``: none on anchors written before them
    path: bytes | None = None        # the audit path's siblings (``signing.tree``); None when signed alone
    left: int = 0                    # which of its siblings are on the left (a bit a step)

    def message(self, duel_id: str) -> bytes:
        return _head_message(duel_id, self.count, self.hash, self.header, self.cards, self.status, self.effects)

    def signed_by(self, signer: PublicKey, duel_id: str, holder: OrganiserKey | None = None) -> bool:
        """Whether this anchor of ``duel_id`` is ``signer``'s: by its MAC when ``holder``, the
        signer's private key, is held here (an HMAC, where an Ed25519 check was a fifth of a
        seek: issue 25; made only with that key's secret, it vouches as the signature does);
        else by its signature, over its message or, signed with its group, over the root its
        audit path leads to. The one check of an anchor: every reader asks it."""
        return _vouched(self.mac, self.signature, signer, holder, self.message(duel_id), self.path, self.left)

    def signed(self, signature: bytes, path: bytes | None = None, left: int = 0) -> "Head":
        """This anchor with its signature (over its root, with its audit path, when signed with its group).
        Its fields copied as they are, not each set again through the frozen ``__init__`` (one
        ``object.__setattr__`` a field: 1.2 µs, now 0.6, an anchor of a group, issue 25)."""
        head = object.__new__(Head)
        head.__dict__.update(self.__dict__, signature=signature, path=path, left=left)
        return head

    def to_dict(self) -> dict:
        out = {"n": self.count, "h": self.hash, "header": self.header, "cards": self.cards,
               "status": self.status, "key": self.key, "sig": self.signature}
        if self.effects is not None:
            out["effects"] = self.effects
        if self.mac is not None:
            out["mac"] = self.mac
        if self.path is not None:
            out["path"], out["left"] = self.path, self.left
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "Head":
        """An anchor as stored; one written before duels kept effect facts has none (``effects``),
        one written before MACs none (``mac``), one signed alone (or written before groups were
        signed together) no audit path. A path not in ``signing.tree``'s form is refused
        (ValueError): at most ``signing.MAX_PATH`` steps of 32 bytes; so is a field of another
        type than the store writes (rewritten in the database), which the readers compare, hash
        and look up as what they are: a count of text or a key of a list was an internal error
        of ``verify`` and of ``list`` for the whole store."""
        path, left = d.get("path"), d.get("left", 0)
        if path is not None:
            signing.check_path(path, left)
        elif "left" in d:
            raise ValueError("an anchor's audit path sides without its path")
        try:
            head = cls(d["n"], d["h"], d["header"], d["cards"], d["status"], d["key"], d["sig"], d.get("effects"),
                       d.get("mac"), path, left)
        except KeyError as exc:
            raise ValueError(f"an anchor without its {exc.args[0]!r}") from None
        if type(head.count) is not int or head.count < 0:
            raise ValueError(f"an anchor's count is a {type(head.count).__name__}, not a number of events")
        fields = {"h": head.hash, "header": head.header, "cards": head.cards, "key": head.key, "sig": head.signature,
                  "status": head.status, "effects": head.effects}
        for name, value in fields.items():
            wanted = dict if name == "status" else bytes
            if not isinstance(value, wanted) and not (name == "effects" and value is None):
                raise ValueError(f"an anchor's {name!r} is a {type(value).__name__}, not {wanted.__name__}")
        return head


#: The most an event's stored row takes beyond its event, which is within the replay file's
#: ``MAX_EVENT_BYTES`` (``_write``): its time, its hashes and their keys (108 bytes).
_ROW_OVERHEAD = 128


def _header_state(header: Header) -> bytes:
    """A stream's header row as stored."""
    return msgpack.packb({"header": header.to_dict(), "h": header.digest})


class Vouched(namedtuple("Vouched", ("header", "status"))):
    """What a stream's signed anchors vouch for, as ``Store.listed`` decides it: its header and
    the status its last anchor signs (players, turn, result)."""

    __slots__ = ()  # ``collections.namedtuple``: see ``events.Loc``
    header: Header
    status: dict


class _Row(namedtuple("_Row", ("originator_id", "originator_version", "topic", "state"))):
    """A stored row as a seek reads it, with ``StoredEvent``'s fields (a frozen dataclass: making
    one per row was a tenth of a seek); ordered by version."""

    __slots__ = ()  # ``collections.namedtuple``: see ``events.Loc``
    originator_id: str
    originator_version: int
    topic: str
    state: bytes


@dataclass(frozen=True)
class Record:
    """One stored event with its place in the chain and whether a rollback reverted it."""

    position: int
    event: Event
    recorded: str
    prev_hash: bytes
    hash: bytes
    reverted_by: int | None = None


@dataclass
class StoredDuel:
    """Everything the store holds about one duel, read whole."""

    id: str
    header: Header
    records: list[Record]
    cards: CardDB
    head: Head | None

    @property
    def events(self) -> list[Event]:
        return [r.event for r in self.records]

    @property
    def times(self) -> list[str]:
        return [r.recorded for r in self.records]

    @property
    def hashes(self) -> list[bytes]:
        return [r.hash for r in self.records]


class StreamKind:
    """What a kind of stream folds its events with, and what its anchors sign as its status.

    The fold (``new``) has ``position`` (the next event's), ``append(event, strict=...)`` (raises
    RuleViolation when strict, else collects it) and ``state``; the store writes, chains, anchors
    and verifies every kind alike. The duel's kind is this class itself."""

    name = "duel"
    topic = HEADER_TOPIC
    snapshots = True                 # a long stream resumes from signed snapshots of its fold

    def new(self, cards: CardDB) -> Any:
        return History(cards, audit=True)

    def use_cards(self, fold: Any, cards: CardDB) -> None:
        """The fold judges with these card facts from now on (an append brought new ones)."""
        fold.cards = fold.state.db = cards

    def status(self, fold: Any) -> dict:
        state = fold.state
        return {"players": list(state.players), "turn": state.turn, "lp": [s.lp for s in state.sides],
                "ended": state.ended, "winner": state.winner, "reason": state.end_reason,
                **({"witnessed": True} if getattr(state, "witnessed", False) else {}),
                # a table's call of a judge or a dispute still open (MATCH-08): what a round flags
                **({"judge": waiting} if (waiting := fold.waiting_for_judge()) else {})}


DUEL = StreamKind()


#: Every kind of stream a store holds, by the name its header gives (``register_kind``).
KINDS: dict[str, StreamKind] = {DUEL.name: DUEL}


def register_kind(kind: StreamKind) -> StreamKind:
    KINDS[kind.name] = kind
    return kind


def _shown_last(index: int, event: Event) -> NoReturn:
    """A witnessed duel's event that shows its writer (the table's recorder, a player's device) a
    card it did not see before (a Set card activated, a face-down monster flipped, a hidden card
    sent to the GY: ``rules.base.shown_to_writer``) ends its batch. A later event whose check reads
    that card (ZONE-09, LOG-03 after it) was answered on what it is, the batch refused all the
    same: the table learned a player's hidden card, nothing written, nothing shown. Refused before
    anything after it is judged, the same answer whatever the card is."""
    raise InputError(say("event {index} ({kind}) shows this writer a card it did not see before: it is "
                         "sent last in its batch (or alone), and what follows in a batch of its own; "
                         "nothing was written", index=index, kind=event.kind))


@dataclass
class _Live:
    """The fold at a stream's head, kept between appends while no one else writes."""

    history: Any                     # the kind's fold (a duel's ``History``)
    header: Header
    cards: CardDB
    cards_digest: bytes
    head: Head
    kind: StreamKind = DUEL
    effects_digest: bytes | None = None
    #: its ``access`` attachment's latest row as read (or written) with it, None when it had none:
    #: what a duel's first append is checked by (``Records.check_mode``) without reading it again
    access: bytes | None = None
    #: the bytes of its header's, events' and card facts' rows (``MAX_STORED``): when not ``exact``,
    #: at most this many (a stream read from the store: ``_head_of``)
    size: int = 0
    exact: bool = True
    #: the records a stream was made with by this process (``record``), while its head is at them:
    #: what ``created`` gives the service's new duel made with its set-up, never read back
    made: tuple[Record, ...] = ()


def key_claim(key: str, stream_id: str) -> dict[str, dict[str, dict]]:
    """The claim of a ``key`` one stream only of the store may hold (an imported file's) for
    ``stream_id``, as ``Store.record`` and ``append_records`` take claims: the store's ``claim``
    attachment keyed by it, its row ``ygoreplay/store/claim/<key>`` of topic ``ygoreplay:claim``
    (the form such claims were always stored in: one written before holds its key still)."""
    return {STORE_ID: {f"claim/{key}": {"stream": stream_id}}}


def _first_rows(attached: dict[str, dict[str, dict]]) -> list[StoredEvent]:
    """The first versions of attachments ``{stream: {name: data}}``: a new stream's, or claims
    (other streams', the store's keys: ``key_claim``), which the recorder's unique (stream,
    version) lets one writer only have. A name is an attachment's (``_attachment``), or one of
    its keys (``name/key``: a row a key, of the attachment's topic). The one place claims are made."""
    from eventsourcing.persistence import StoredEvent
    rows = []
    for owner, named in attached.items():
        for name, data in named.items():
            kind, keyed, key = name.partition("/")
            if keyed and not key.replace("-", "").replace("_", "").isalnum():
                raise ValueError(f"{name!r} cannot name an attachment")
            rows.append(StoredEvent(f"{owner}/{_attachment(kind)}{keyed}{key}", 0, f"ygoreplay:{kind}",
                                    msgpack.packb(data)))
    return rows


def _attachment(name: str) -> str:
    """An attachment's name, which must not be one of the store's own topics (a stream kind's
    header, its cards, anchors, snapshots): its rows would be read as theirs."""
    own = {kind.topic for kind in KINDS.values()} | {CARDS_TOPIC, HEAD_TOPIC, SNAPSHOT_TOPIC, STORE_TOPIC}
    if f"ygoreplay:{name}" in own or not name.replace("_", "").isalnum():
        raise ValueError(f"{name!r} cannot name an attachment")
    return name


def _vouched(mac: object, signature: object, signer: PublicKey, holder: OrganiserKey | None,
             message: bytes, path: object = None, left: object = 0) -> bool:
    """Whether a snapshot's or an anchor's (``Head.signed_by``) ``message`` is its signer's: by
    its MAC when this store holds the signer's private key (``holder``; an HMAC, where an
    Ed25519 check was a fifth of a seek: issue 25), else (no MAC: written before them; one
    that does not hold; a key held elsewhere) by its signature: over the message, or, signed
    with its group commit (``path``: written since the twenty-second pass), over the root its
    audit path leads to, as an anchor's. A MAC is made only with that key's secret, so it
    vouches as the signature does, to a holder of that key only."""
    if holder is not None and holder.check_mac(mac, message):
        return True
    if not isinstance(signature, bytes):
        return False
    if path is None:
        return signer.verify(signature, message)
    try:
        root = signing.root_of(message, path, left)      # type: ignore[arg-type]
    except ValueError:                                  # not ``signing.tree``'s form: not vouched
        return False
    return signer.verify(signature, _GROUP_LABEL + root)


def _marked(decoded: list[Record]) -> list[Record]:
    """Records marked reverted where a rollback (or a correction, which goes back as one does) undid them."""
    reverted: dict[int, int] = {}
    in_effect: list[int] = []                     # positions of play in effect, in order
    for rec in decoded:
        going_back = rec.event.kind in ("rolled_back", "entry_corrected")
        if going_back and 0 < rec.event.to < rec.position:
            while in_effect and in_effect[-1] >= rec.event.to:
                reverted[in_effect.pop()] = rec.position
        elif not going_back and rec.event.kind not in ("entry_confirmed", "entry_disputed"):
            in_effect.append(rec.position)
    return [Record(r.position, r.event, r.recorded, r.prev_hash, r.hash, reverted.get(r.position)) for r in decoded]


def _snapshot_data(snap: dict) -> dict:
    """The data of a stored snapshot; one written before they were deflated (no ``z``) is plain
    msgpack. Inflated to at most ``MAX_SNAPSHOT`` bytes (zlib.error past it): a snapshot signed by
    any key the store trusts is read, and a deflated one may expand a thousandfold."""
    data = snap["d"]
    if snap.get("z"):
        inflater = zlib.decompressobj()
        data = inflater.decompress(data, MAX_SNAPSHOT)
        if inflater.unconsumed_tail or not inflater.eof:
            raise zlib.error(f"a snapshot inflates past {MAX_SNAPSHOT:,} bytes, or is cut short")
    return msgpack.unpackb(data)


def _follows(envelope: dict, prev: bytes, position: int, pack: Callable[[object], bytes] = msgpack.packb) -> bool:
    """Whether a stored event (its envelope, as written) follows the chain hash ``prev``: the hash
    is of the event as stored, not as read (an older version's event is upcast when read).
    ``pack``: ``chain.link``'s (a loop's own ``chain.packer()``)."""
    try:
        return envelope["p"] == prev and chain.link(prev, position, envelope["e"], envelope["t"], pack) == envelope["h"]
    except (KeyError, TypeError, ValueError):       # no chain fields, or none that hash: not vouched for
        return False


def _head_owners(duel_id: str) -> tuple[str, ...]:
    """The streams of ``Store._head_query``'s parts, in order: its bound values."""
    return (duel_id, duel_id, f"{duel_id}/head", f"{duel_id}/cards", f"{duel_id}/access")
