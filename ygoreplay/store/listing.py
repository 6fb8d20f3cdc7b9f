"""The store's listings: its duels, what the library lists of each (with the decisions on
their anchors, kept by the rows they were made on), their attachments and family trees
(``Listing``, a mixin of ``Store``)."""
from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from ..digests import sha256
from ..errors import StoreError
from ..i18n import say
from ..lazy_dataclass import dataclass
from .records import HEAD_TOPIC, KINDS, _LISTED_AT_ONCE, _LISTED_KEPT, _MARKS_KEPT, AlteredRow, Vouched, _blob

if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence

    from ..signing import OrganiserKey
    from .records import Header


@dataclass(frozen=True)
class DuelInfo:
    """A duel as ``list`` shows it, read from its header and its last anchor only."""

    id: str
    title: str
    created: str
    parent: str | None
    branch_at: int | None
    events: int = 0
    status: dict = field(default_factory=dict)
    source: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)
    signed: bool = True              # its last anchor's signature holds (else ``status`` is not shown)


class Listing:
    """``Store``'s listings: its duels, their listed columns, marks, attachments and trees."""

    def duels(self, kind: str = "duel") -> list[DuelInfo]:
        """Every duel in the store (or every stream of another ``kind``: a match), oldest first,
        with its count and status from its last anchor."""
        return [self._info(duel_id, state) for duel_id, state in self.header_rows([KINDS[kind].topic])]

    def info(self, duel_id: str) -> DuelInfo:
        try:
            state = self._header_row(duel_id)
        except AlteredRow:               # listed as a header that cannot be read
            state = b""
        return self._info(duel_id, state)

    def _info(self, duel_id: str, state: bytes) -> DuelInfo:
        try:
            header = self._decode_header(duel_id, state)
        except StoreError:
            return DuelInfo(duel_id, "(unreadable header)", "", None, None)
        # an anchor row refused is no anchor: listed unsigned ("run verify"), the listing goes on
        rows = self.events.select_events(f"{duel_id}/head", desc=True, limit=1, refused={})
        head = self._names_header(duel_id, header, rows[0] if rows else None)
        if head is None:
            stored = self._anchor(duel_id)
            return DuelInfo(duel_id, header.title, header.created, header.parent, header.branch_at,
                            stored.count if stored else 0, {}, header.source, header.provenance, signed=False)
        return DuelInfo(duel_id, header.title, header.created, header.parent, header.branch_at,
                        head.count, head.status, header.source, header.provenance)

    def listed_columns(self, stream: str, last: str | None = None) -> str:
        """The columns ``listed`` decides a stream on, as SQL for the stream whose id the
        expression ``stream`` gives: its header row's state (``listed_header``), and its last
        anchor's version and state (``listed_version``, ``listed_anchor``), each by one index
        lookup; ``last``: an expression the caller has for that version (the library's
        ``events``: the last anchor row's). A read that finds its streams in a statement of its
        own reads these there too and hands its rows to ``listed``: no statement more for them."""
        version = last or (f"(SELECT max(v.originator_version) FROM {{heads}} v "
                           f"WHERE v.originator_id = {stream} || '/head')")
        return self.library.sql(
            f"(SELECT e.state FROM {{heads}} e WHERE e.originator_id = {stream} AND e.originator_version = 0) "
            f"AS listed_header, {version} AS listed_version, (SELECT e.state FROM {{heads}} e WHERE "
            f"e.originator_id = {stream} || '/head' AND e.originator_version = {version}) AS listed_anchor")

    def committed(self, cursor: Any) -> tuple[Any, ...]:
        """A mark of what has been committed to the store's database, read in a read's transaction
        (``cursor``) before its statement: two equal marks, nothing was committed between them,
        by this process or any other (a row altered in the database too), so the same rows are
        read. PostgreSQL: the snapshot (which transactions it sees done: none more, none less);
        SQLite: its connection (whose counts these are), ``data_version`` (the commits of every
        other connection, in any process) and ``total_changes`` (its own)."""
        if self.backend == "postgresql":
            cursor.execute("SELECT pg_current_snapshot()::text AS snapshot")
            return ("postgresql", cursor.fetchone()["snapshot"])
        connection = cursor.sqlite_cursor.connection
        cursor.execute("PRAGMA data_version")
        return (connection, cursor.fetchone()[0], connection.total_changes)

    def decided(self, mark: tuple[Any, ...]) -> bool:
        """Whether ``listed`` has decided streams on rows read at this ``committed`` mark: a read
        at that mark need not read the rows of those again (``listed_columns``)."""
        return mark in self._listed_at

    def listed(self, ids: Sequence[str], rows: Mapping[str, Sequence[Any]] | None = None,
               mark: tuple[Any, ...] | None = None, ancestors: bool = False) -> dict[str, Vouched]:
        """Of these streams, those a listing of anyone's may name, with their headers and the
        status their last anchor signs (``Vouched``: what the library index's rows of each are
        checked against, ``library.Index.vouched``): the header is the one the last anchor names (``_names_header``, what ``DuelInfo.signed`` says), and
        for a branch so is every ancestor's (its first events are the parent's: a branch of an
        altered duel shows a spectator nothing, as ``LiveDuel.hidden_by_parent`` decides). Each is
        decided on its header row and last anchor row, never an event: ``rows`` (by id, each
        ending with ``listed_columns``' three) when the caller read them in its own statement,
        else read here in one statement per generation. Each decision is kept for the rows'
        bytes (``_listed_header``), and by ``mark``, the ``committed`` mark the caller read
        before its statement: every row read since (the caller's, these) is the one any later
        read at the same mark reads (nothing was committed between), so a stream decided at that
        mark is neither read nor decided again, and a caller at a mark ``decided`` leaves the
        rows out of its statement. With ``ancestors``, the ancestors of those named too (each
        named, as a branch's are: decided with them, never read again: what holds a branch
        back, ``library_search._held_back``)."""
        with self._guard:
            kept = self._listed_at.get(mark) if mark is not None else None
        headers: dict[str, Vouched | None] = {} if kept is None else kept     # decided at ``mark``: added to
        given = rows or {}
        waiting = [stream_id for stream_id in dict.fromkeys(ids) if stream_id not in headers]
        while waiting:
            found = [(stream_id, given[stream_id]) for stream_id in waiting if stream_id in given]
            unread = [stream_id for stream_id in waiting if stream_id not in given]
            for at in range(0, len(unread), _LISTED_AT_ONCE):
                wanted = unread[at:at + _LISTED_AT_ONCE]
                # the ids as one bound value: no statement of its own for each hundred streams
                unnest = ("SELECT unnest(?::text[]) AS id" if self.backend == "postgresql"
                          else "SELECT value AS id FROM json_each(?)")
                query = self.library.sql(f"WITH wanted(id) AS ({unnest}) "
                                         f"SELECT wanted.id, {self.listed_columns('wanted.id')} FROM wanted")
                if self.backend != "postgresql":
                    import json                 # not with this module: a stored board never lists
                    wanted = json.dumps(wanted)
                with self.events.datastore.transaction(commit=False) as cursor:
                    cursor.execute(query, [wanted])
                    found += [(str(row["id"]), (row["listed_header"], row["listed_version"], row["listed_anchor"]))
                              for row in cursor.fetchall()]
            for stream_id, row in found:
                headers[stream_id] = self._listed_header(stream_id, *row[-3:])
            waiting = [parent for parent in dict.fromkeys(v.header.parent for v in (headers[s] for s, _ in found)
                                                          if v is not None and v.header.parent)
                       if parent not in headers]

        def vouched(stream_id: str) -> bool:
            seen = set()
            found = headers.get(stream_id)
            while found is not None and found.header.parent and stream_id not in seen:
                seen.add(stream_id)
                stream_id = found.header.parent
                found = headers.get(stream_id)
            return found is not None
        if mark is not None and kept is None:
            with self._guard:
                while len(self._listed_at) >= _MARKS_KEPT and mark not in self._listed_at:
                    del self._listed_at[next(iter(self._listed_at))]
                self._listed_at[mark] = headers
        named = {stream_id: found for stream_id in ids
                 if (found := headers.get(stream_id)) is not None and vouched(stream_id)}
        for found in list(named.values()) if ancestors else ():
            parent = found.header.parent
            while parent and parent not in named and (above := headers.get(parent)) is not None:
                named[parent] = above
                parent = above.header.parent
        return named

    def _listed_header(self, stream_id: str, header_state: bytes | None, version: int | None,
                       anchor_state: bytes | None) -> Vouched | None:
        """``listed``'s decision on one stream's header row and last anchor row: its header and
        the status that anchor signs, or None. Kept by stream with the exact bytes and version it was made on (``_listed``): the
        same rows decide the same, compared byte for byte (no digest made: two SHA-256 a stream
        were most of a popular card's numbers), and a row changed in any way is decided again."""
        from eventsourcing.persistence import StoredEvent
        if header_state is None or version is None or anchor_state is None:
            return None
        try:
            header_state = _blob(header_state, 0, stream_id)
            anchor_state = _blob(anchor_state, version, f"{stream_id}/head")
        except AlteredRow:             # altered in the database: listed by no one, as any altered header
            return None
        kept = self._listed.get(stream_id)
        if kept is not None and kept[0] == header_state and kept[1] == version and kept[2] == anchor_state:
            return kept[3]
        try:
            header: Header | None = self._decode_header(stream_id, header_state)
        except StoreError:
            header = None
        row = StoredEvent(f"{stream_id}/head", version, HEAD_TOPIC, anchor_state)
        head = self._names_header(stream_id, header, row) if header is not None else None
        found = Vouched(header, head.status) if header is not None and head is not None else None
        if kept is not None or len(self._listed) < _LISTED_KEPT:    # full: the first kept stay
            self._listed[stream_id] = (header_state, version, anchor_state, found)
        return found

    def index_key(self) -> OrganiserKey | None:
        """The organiser's private key when this process holds it (it signs this store's writes,
        or ``trusts`` found it): what keys the library index's rows (``library.Index``); None when
        it holds only public keys."""
        if self._key is None and self._organiser is None and not self._key_looked_for:
            self._key_looked_for = True
            self.trusts(b"")                       # loads the organiser key, when there is one
        return self._key or self._organiser

    def head_mark(self, stream_id: str) -> tuple[int, bytes] | None:
        """What a stream's last anchor row is (its count and the digest of its bytes), by one
        index lookup and no signature checked; None for none. A key for what is made of a
        stream (a round's table): any append, or the anchor rewritten, gives another mark. What
        is shown of the stream is still read through its verified reads."""
        rows = self.events.select_events(f"{stream_id}/head", desc=True, limit=1, refused={})
        return (rows[0].originator_version, sha256(rows[0].state).digest()) if rows else None

    def head_marks(self, stream_ids: Sequence[str]) -> dict[str, tuple[int, bytes] | None]:
        """``head_mark`` of each of these streams, by one statement for all (a round's tables:
        a statement each was ~0.07 ms of connection handling, 35 ms a read at 500 tables)."""
        marks = {}
        for stream_id, (version, state) in self._last_rows(stream_ids, "head").items():
            try:
                state = _blob(state, version, stream_id)
            except AlteredRow:           # a row refused is no record, b"", as ``head_mark`` reads it
                state = b""
            marks[stream_id] = None if version is None else (version, sha256(state).digest())
        return marks

    def attachments(self, stream_ids: Sequence[str], name: str,
                    refused: dict[str, StoreError]) -> dict[str, dict | None]:
        """``attachment`` of each of these streams under ``name``, by one statement for all; a
        stream whose record cannot be read (what ``attachment`` raises for it) is put in
        ``refused`` with its error, not in the answer, so the others are still read."""
        found = {}
        for stream_id, (version, state) in self._last_rows(stream_ids, name).items():
            try:
                found[stream_id] = None if version is None else self._attached(
                    stream_id, name, _blob(state, version, f"{stream_id}/{name}"))
            except StoreError as exc:
                refused[stream_id] = exc
        return found

    def branches(self) -> dict[str, list[str]]:
        """Every duel's what-if branches, by the id of the duel each branched from, as their header
        rows name it: one read of the headers (not ``duels``, which reads each one's anchor too);
        a header that cannot be read names none (every read of that duel refuses it)."""
        out: dict[str, list[str]] = {}
        for stream_id, state in self.header_rows([KINDS["duel"].topic]):
            try:
                parent = self._decode_header(stream_id, state).parent
            except StoreError:
                continue
            if parent:
                out.setdefault(parent, []).append(stream_id)
        return out

    def tree(self, duel_id: str) -> list[tuple[int, DuelInfo]]:
        """The duel's family as (depth, duel) in depth-first order, from its root."""
        infos = {d.id: d for d in self.duels()}
        if duel_id not in infos:
            raise StoreError(say("no duel {duel_id!r} in {name}", duel_id=duel_id, name=self.name))
        root = duel_id
        seen = {root}
        while infos[root].parent in infos and infos[root].parent not in seen:
            root = infos[root].parent
            seen.add(root)
        children: dict[str | None, list[DuelInfo]] = {}
        for d in infos.values():
            children.setdefault(d.parent, []).append(d)
        out: list[tuple[int, DuelInfo]] = []
        stack = [(infos[root], 0)]
        visited: set[str] = set()
        while stack:
            d, depth = stack.pop()
            if d.id in visited:
                continue
            visited.add(d.id)
            out.append((depth, d))
            kids = sorted(children.get(d.id, []), key=lambda c: (c.branch_at or 0, c.created))
            stack.extend((c, depth + 1) for c in reversed(kids))
        return out
