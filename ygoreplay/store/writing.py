"""A store's writes: record, append, attach, branch: the rows of one transaction, their anchors and
snapshots, checked by the rules fold before they are written (``Writing``, a mixin of ``Store``)."""
from __future__ import annotations

import zlib
import os
import functools
from typing import TYPE_CHECKING

import msgpack

from .. import chain, signing
from ..cards import CardDB
from ..errors import ConflictError, InputError, StoreError, StoreUnavailable, VerificationError, WriteOutcomeUnknown
from ..events import Event
from ..i18n import say
from ..lazy_dataclass import made
from ..passcodes import referenced_codes
from ..rules import RuleViolation
from ..rules.base import hidden_from_writer, shown_to_writer
from .opening import _reason
from .records import (CARDS_TOPIC, HEAD_TOPIC, KINDS, SNAPSHOT_EVERY, SNAPSHOT_TOPIC, STORE_ID, _BEHIND, _CARD_FACTS,
                      _NO_FACTS, _PROOFS_KEPT, Head, Header, Record, _Live, _attachment, _chained, _first_rows,
                      _head_message, _header_state, _keep_card_facts, _now, _shown_last, new_id)

if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Sequence

    from eventsourcing.persistence import StoredEvent

    from .. import library
    from ..cards import CardFacts


@functools.cache
def _replay_file() -> Any:
    """The replay file's module (its limits and checks), imported by what writes, not with the
    store: a read (``show DUEL --at N``) never checks a file's limits (issue 25)."""
    from .. import replay_file
    return replay_file


@functools.cache
def _writing() -> tuple[Any, Any, Any]:
    """What a write needs and a read does not (issue 25: imported by the first write, not with
    the store): ``eventsourcing``'s row, the library index's module and the replay file's (its
    limits read off the module at each write). Looked up once, not by import statements at every
    append."""
    from eventsourcing.persistence import StoredEvent

    from .. import library
    return StoredEvent, library, _replay_file()


def _exportable(event: Event, position: int, size: int = 0, names: int | None = None) -> None:
    """``check_event``: an event no replay file could hold is refused, nothing written (``names``:
    the most player names, ``MAX_PLAYER_NAMES`` when None)."""
    files = _replay_file()
    try:
        files.check_event(event, position, size, files.MAX_PLAYER_NAMES if names is None else names)
    except files.ReplayFileError as exc:
        raise InputError(say("{exc}: the duel could not be exported; nothing was written", exc=exc)) from None


def _head_row(duel_id: str, head: Head, pack: Callable[[object], bytes] = msgpack.packb) -> library.HeadRow:
    """The stored row of a signed anchor (its version the event count; ``pack``: a group's
    leader packs its group's rows with one ``chain.packer``)."""
    library = _writing()[1]       # looked up once, not by an import statement at every append
    return made(library.HeadRow, originator_id=f"{duel_id}/head", originator_version=head.count, topic=HEAD_TOPIC,
                state=pack(head.to_dict()), status=head.status)


class Writing:
    """A store's writes (``Store``'s): the rows of one transaction, checked by the rules fold."""

    # -- duels ------------------------------------------------------------------------------------

    def create_duel(self, title: str = "", *, parent: str | None = None,
                    branch_at: int | None = None) -> str:
        """A new duel with no events yet; returns its id."""
        return self.record([], title, parent=parent, branch_at=branch_at)[0]

    def record(self, events: Iterable[Event], title: str = "", *, times: list[str] | None = None,
               cards: CardDB | None = None, check: bool = True, root: bytes | None = None,
               secret: bytes | None = None, created: str | None = None, parent: str | None = None,
               branch_at: int | None = None, source: dict | None = None, provenance: dict | None = None,
               attachments: dict[str, dict] | None = None, kind: str = "duel",
               strict: bool = False, stream_id: str | None = None,
               gather: list | None = None,
               claims: dict[str, dict[str, dict]] | None = None) -> tuple[str | None, int, RuleViolation | None]:
        """A new duel and its events, written in one transaction; (id, events stored, violation).

        With ``check`` (recording) the events are checked like ``check`` does and the duel keeps
        the legal prefix before the first violation (no duel at all when that prefix is empty and
        there were events); without (importing a record) every event is kept and what the rules
        say of them is the audit's business. ``cards`` given are taken before the store's, each
        card with exactly the effect facts given with it (a ``.ygr`` file's own). ``root``, ``secret``, ``created`` and ``times`` keep
        those of an imported record; by default they are new. ``attachments`` are written with
        the duel, in the same transaction (the service's access record: ``attachment``).
        ``kind`` names the stream's kind (``KINDS``: a match is a stream of its own kind);
        ``strict`` refuses every event when one is refused (RuleViolation, nothing written).
        ``stream_id`` is the id to give it (one named beforehand, e.g. by the match it is a duel
        of); by default a new random one. An id already taken is a ConflictError. ``gather``
        collects what would be written instead of writing it (``record_together`` writes it).
        ``claims`` are written with it as ``append_records``' are (an imported file's key:
        ``key_claim``): one another stream holds is a ConflictError, nothing written, in
        whichever process either was written.
        """
        from eventsourcing.persistence import StoredEvent
        self._writable()
        events = list(events)
        if times is not None and len(times) != len(events):
            raise ValueError("one recording time per event")
        stream = KINDS[kind]
        header = Header(title, created or chain.now(), root or os.urandom(32),
                        secret or os.urandom(32), parent, branch_at, source or {}, provenance or {},
                        kind)
        duel_id = stream_id or new_id()
        codes = referenced_codes(events)
        facts = self._facts_for(codes, CardDB(), cards)
        rows = [StoredEvent(duel_id, 0, stream.topic, _header_state(header))]
        rows += _first_rows({duel_id: attachments or {}})
        claimed = _first_rows(claims or {})
        self._claimed(claimed)
        rows += claimed
        access = next((row.state for row in rows if row.originator_id == f"{duel_id}/access"), None)
        live = _Live(stream.new(facts), header, CardDB(), chain.GENESIS, None, stream, access=access,
                     size=len(rows[0].state))
        count, violation, _written = self._write(duel_id, live, events, codes, times, rows, facts,
                                                 "strict" if strict else "prefix" if check else "all", gather)
        if count == 0 and violation is not None:
            return None, 0, violation
        return duel_id, count, violation

    def record_together(self, streams: list[dict], attachments: dict[str, dict[str, dict]] | None = None) -> list[str]:
        """New streams, each given as ``record``'s keyword arguments (and each strict), and
        attachments of any stream (``{id: {name: data}}``), written in one transaction: all of
        them, or none when one is refused (an organiser's round and its matches). Their ids."""
        from eventsourcing.persistence import StoredEvent
        self._writable()
        gathered: list[tuple[str, list[StoredEvent], list[StoredEvent], _Live]] = []
        ids = [str(self.record(**{**spec, "strict": True}, gather=gathered)[0]) for spec in streams]
        rows = [row for _id, written, _snapshots, _live in gathered for row in written]
        attached = _first_rows(attachments or {})
        self._commit_rows(rows + attached, [row for _id, _written, snapshots, _live in gathered for row in snapshots])
        access = {row.originator_id: row.state for row in attached if row.topic == "ygoreplay:access"}
        for stream_id, _written, _snapshots, live in gathered:
            live.access = access.get(f"{stream_id}/access", live.access)      # held with what was written
            self._remember(stream_id, live)
        return ids

    def attach(self, duel_id: str, name: str, data: dict | Callable[[dict | None], dict]) -> dict:
        """A new version of a duel's attachment (e.g. the organiser changes a spectator delay):
        the one after the latest, read again when another writer (a thread, a process) wrote that
        version first. Two at once both land, the later one latest: the second met the recorder's
        unique (stream, version) and was refused as a conflict no one else had asked for. ``data``
        a function of the latest version (None for none) is a change of it, made again of the
        version another writer wrote first: a whole record made of the one read before (a release
        and a change of visibility at once) put back what the other had changed (a duel made
        private was public again, its dropped spectator token back). Returns what was written."""
        from eventsourcing.persistence import StoredEvent
        self._writable()
        stream = f"{duel_id}/{_attachment(name)}"
        for attempt in range(1, self.ATTACH_TRIES + 1):
            rows = self.events.select_events(stream, desc=True, limit=1)
            version = rows[0].originator_version + 1 if rows else 0
            if callable(data):
                written = data(self._attached(duel_id, name, rows[0].state) if rows else None)
            else:
                written = data
            state = msgpack.packb(written)
            try:
                self._insert([StoredEvent(stream, version, f"ygoreplay:{name}", state)])
                break
            except ConflictError:
                if attempt == self.ATTACH_TRIES:
                    raise ConflictError(say("{duel_id}: its {name} was changed by {attempt} other writes "
                                            "while this one was made; it was not written: try again",
                                            duel_id=duel_id, name=name, attempt=attempt)) from None
        if name == "access":             # the head held carries the access read with it: read both again
            with self._lock_for(duel_id):
                self._forget(duel_id)
        return written

    def set_setting(self, name: str, data: dict) -> None:
        self.attach(STORE_ID, name, data)

    # -- appending --------------------------------------------------------------------------------

    def append(self, duel_id: str, events: Event | Iterable[Event], *,
               expected_position: int | None = None, times: list[str] | None = None) -> int:
        """Check and append events at the head; returns the new length (see ``append_records``)."""
        events = [events] if isinstance(events, Event) else list(events)
        if not events:                                 # nothing to write: the length as it is
            length = self.info(duel_id).events
            if expected_position is not None and expected_position != length:
                raise ConflictError(say("duel {duel_id} has {length} events, not {expected_position}",
                                        duel_id=duel_id, length=length, expected_position=expected_position))
            return length
        return self.append_records(duel_id, events, expected_position=expected_position, times=times)[-1].position + 1

    def append_records(self, duel_id: str, events: Event | Iterable[Event], *,
                       expected_position: int | None = None, times: list[str] | None = None,
                       claims: dict[str, dict[str, dict]] | None = None,
                       streams: list[dict] | None = None, receipted: bool = False,
                       others: Sequence[tuple[str, list[Event], int]] = (),
                       written_others: dict[str, list[Record]] | None = None,
                       read_claims: bool = True, shown_last: bool = False,
                       kept: Sequence[tuple[str, str, int, dict]] = ()) -> list[Record]:
        """Check and append events at the head; returns the records written. All or nothing.

        Raises RuleViolation (nothing written) for an illegal event; ConflictError when
        ``expected_position`` is not the head, or another writer took it first (without an
        expected position the events are checked again at the new head and appended there);
        VerificationError when the head no longer matches its signed anchor (truncated or
        rechained: run verify).

        ``claims`` (``{stream: {name: data}}``) are attachments of other streams written as
        their first version, in the same transaction as the events: the recorder's unique
        (stream, version) lets one writer only have each, whoever else read it free at the same
        moment, in any process. One written already is a ConflictError (``claimed``), nothing
        of the append written; and no claim is ever written without its events (a match's
        link to its duel: ``match.commands.record``).

        ``streams`` are new streams (each given as ``record``'s keyword arguments, strict),
        written in the same transaction too: a match's new duel, which its events name, is
        never there without them, nor they without it (``match.commands.record``).

        ``receipted``: the append's receipt is signed with its group commit's anchors, kept for
        its caller to take (``receipt_proof``), where there is a group commit.

        ``others`` (``(stream, events, head)``) are appended to other existing streams in the same
        transaction, each strictly checked at exactly that head (else ConflictError): a match's
        game end closes its duel for play (``match.commands.record``), the duel's next position
        taken in its transaction, so no append of the duel judged before it lands after it.
        ``written_others`` takes their records, by stream. ``read_claims`` False: the claims are
        not read before the write (a duel's first append's ``opening``, rarely taken: no read more
        on a table's first append), the write's unique key refusing one taken all the same.
        ``kept`` (``(stream, name, version, data)``): attachments of other streams written as that
        version, the one after the version the caller judged (``attachment_version``): a change of
        it written meanwhile (``attach``) took that version, and the append is a ConflictError, so
        a match never links a duel on the access it had before it was made private.
        ``shown_last``: the writer's view is not the judge's (a witnessed duel's table recorder, a
        player's device): an event that shows it a card it did not see ends the batch (``_shown_last``).
        """
        from eventsourcing.persistence import StoredEvent
        self._writable()
        events = [events] if isinstance(events, Event) else list(events)
        if times is not None and len(times) != len(events):
            raise ValueError("one recording time per event")
        claimed = _first_rows(claims or {})
        judged = [StoredEvent(f"{owner}/{_attachment(name)}", version, f"ygoreplay:{name}", msgpack.packb(data))
                  for owner, name, version, data in kept]
        if read_claims:
            self._claimed(claimed)
        made: list[tuple[str, list[StoredEvent], list[StoredEvent], _Live]] = []
        for spec in streams or ():
            self.record(**{**spec, "strict": True}, gather=made)
        for other_id, other_events, head in others:
            written_other = self._gathered_append(other_id, other_events, head, made)
            if written_others is not None:
                written_others[other_id] = written_other
        made_rows = [row for _id, rows, _snapshots, _live in made for row in rows]
        made_snapshots = [row for _id, _rows, snapshots, _live in made for row in snapshots]
        codes = referenced_codes(events)
        with self._lock_for(duel_id):
            attempt = 0
            while True:
                live = self._cached(duel_id) if attempt == 0 else None
                cached = live is not None
                if live is None or (expected_position is not None and expected_position != live.history.position):
                    live = self._load_head(duel_id)   # never seen, or someone else may have appended
                    cached = False
                start = live.history.position
                if expected_position is not None and expected_position != start:
                    raise ConflictError(say(_BEHIND, duel_id=duel_id, start=start, expected_position=expected_position))
                facts = self._facts_for(codes, live.cards, None)
                try:
                    written = self._write(duel_id, live, events, codes, times, claimed + judged + made_rows, facts,
                                          "strict", other_snapshots=made_snapshots, receipted=receipted,
                                          shown_last=shown_last)[2]
                    for stream_id, _rows, _snapshots, made_live in made:
                        self._remember(stream_id, made_live)
                    return written
                except ConflictError:
                    self._forget(duel_id)
                    self._claimed(claimed)           # lost a claim, not a position: no retry takes it
                    attempt += 1
                    if expected_position is not None or attempt == 3:
                        raise                         # asked for that position: it is gone
                except RuleViolation:
                    self._forget(duel_id)
                    if not cached:
                        raise
                    attempt += 1      # judged on the head this process cached: another process may
                                      # have appended since; judge it again on the stored head
                except BaseException:
                    self._forget(duel_id)             # the cached fold may hold unwritten events
                    for other_id, *_rest in others:
                        self._forget(other_id)
                    raise

    def _gathered_append(self, stream_id: str, events: list[Event], head: int, made: list) -> list[Record]:
        """``events`` folded strictly onto stream ``stream_id`` read at its stored head, which must
        be ``head`` (else ConflictError), and gathered into ``made`` to be written with another
        append (``append_records``' ``others``); nothing of it is held until that is written."""
        with self._lock_for(stream_id):
            live = self._load_head(stream_id)            # fresh: the cached fold is left as it is
            if live.history.position != head:
                raise ConflictError(say(_BEHIND, duel_id=stream_id, start=live.history.position,
                                        expected_position=head))
            codes = referenced_codes(events)
            try:
                return self._write(stream_id, live, events, codes, None, [],
                                   self._facts_for(codes, live.cards, None), "strict", made)[2]
            except RuleViolation as exc:
                exc.stream = stream_id                   # whose rules refused it: its caller says so
                raise

    def _claimed(self, claims: list[StoredEvent]) -> None:
        """ConflictError when one of ``claims`` (first versions of attachments: ``_first_rows``) is
        written already."""
        for row in claims:
            if self.events.select_events(row.originator_id, limit=1):
                owner, _, name = str(row.originator_id).partition("/")
                raise ConflictError(say("{owner}: its {name} is written already (claimed by another "
                                        "writer); nothing was recorded",
                                        owner=owner, name=name))

    def _facts_for(self, codes: set[int], have: CardDB, extra: CardDB | None) -> CardDB:
        """``have`` and the facts of every card of ``codes`` (those the events name:
        ``referenced_codes``, worked out once an append) that ``have`` lacks, from
        ``extra`` or else the store's card database, each with the effect facts of the source
        that gave its facts: a record imported with its own (a ``.ygr`` file) keeps exactly those,
        none from the scripts installed here (unknown cards are the rules' business: CARD-01)."""
        sources = [self.cards] if extra is None else [extra, self.cards]
        found: list[CardFacts] = []
        effects: dict[int, tuple] = {}
        for code in codes:
            if code in have:
                continue
            for source in sources:
                facts = source.get(code)
                if facts is not None:
                    found.append(facts)
                    if scripted := source.effects(code):
                        effects[code] = scripted
                    break
        return have.merged(CardDB(found, effects)) if found else have

    def _write(self, duel_id: str, live: _Live, events: list[Event], codes: set[int], times: list[str] | None,
               rows: list[StoredEvent], facts: CardDB, mode: str, gather: list | None = None,
               other_snapshots: Sequence[StoredEvent] = (), receipted: bool = False, shown_last: bool = False
               ) -> tuple[int, RuleViolation | None, list[Record]]:
        """Fold ``events`` onto ``live`` and write them, with the card facts they add and a new
        signed anchor, in one transaction; snapshots follow. ``mode`` says what a violation does:
        ``strict`` raises it before anything is written, ``prefix`` writes the events before it,
        ``all`` refuses nothing (a record being imported). Returns (new length, violation, the
        records written). ``gather`` takes what would be written instead (``record_together``);
        ``other_snapshots`` (of streams made with these: ``append_records``) are written with theirs;
        ``receipted``: a receipt of the new head signed with the group (``receipt_proof``);
        ``shown_last``: as ``append_records``'."""
        StoredEvent, library, files = _writing()
        HEADER_LIST, MAX_CARDS, MAX_EVENT_BYTES, MAX_EVENTS, MAX_PLAYER_NAMES, MAX_STORED = (
            files.HEADER_LIST, files.MAX_CARDS, files.MAX_EVENT_BYTES, files.MAX_EVENTS, files.MAX_PLAYER_NAMES,
            files.MAX_STORED)
        history, stream = live.history, live.kind
        # the facts of cards the duel did not have (none when ``facts`` is its own: most appends)
        fresh = (codes & set(facts)) - set(live.cards) if facts is not live.cards else set()
        added = facts.subset(fresh) if fresh else _NO_FACTS
        cards = live.cards.merged(added) if len(added) else live.cards
        stream.use_cards(history, cards)
        prev = live.head.hash if live.head else live.header.root
        snapshots, events_rows, violation, written = [], [], None, []
        # What a replay file holds (``check_event``), whichever way the events came: an import's
        # too, as a reader bounds a body, not each event, nor a body string to a header's. An
        # import keeps the names a duel stored before the check listed (as ``dumps`` writes them).
        names = MAX_PLAYER_NAMES if mode != "all" else HEADER_LIST
        # and what a file holds of a whole duel (``MAX_EVENTS``, ``MAX_STORED``, ``MAX_CARDS``),
        # by running totals: its rows' bytes as written, summed by the database only once a
        # stream read from the store may pass the limit (``_past_stored``)
        size, exact, grown = live.size, live.exact, 0
        pack = chain.packer()                              # each event's link and row
        last = len(events) - 1 if shown_last else 0    # the last a writer may be shown a card by
        for i, event in enumerate(events):
            position = history.position
            negated = library.before(event, history)
            _exportable(event, position, names=names)
            if position >= MAX_EVENTS:
                raise InputError(say("event {position} ({event_kind}): a replay file holds at most "
                                     "{max_events:,} events: the duel could not be exported; nothing was "
                                     "written",
                                     position=position, event_kind=event.kind, max_events=MAX_EVENTS))
            hidden = hidden_from_writer(history.state, event) if i < last else None
            try:
                history.append(event, strict=mode != "all")
            except RuleViolation as v:
                if mode == "strict":
                    raise
                violation = v
                break
            if hidden and shown_to_writer(history.state, event, hidden):
                _shown_last(i, event)
            if times:
                at = chain.to_ms(times[i])
                when = chain.from_ms(at)              # ``chain.canonical_time``
            else:
                when, at = _now()
            wire = event.to_dict()
            try:
                digest_i = chain.link(prev, position, wire, when, pack)
                row = pack({"e": wire, "t": when, "p": prev, "h": digest_i})
            except (OverflowError, ValueError, TypeError) as exc:      # a Python caller's own event
                raise InputError(say("event {position} ({event_kind}) cannot be stored ({exc}); nothing "
                                     "was written",
                                     position=position, event_kind=event.kind, exc=exc)) from None
            if len(row) > MAX_EVENT_BYTES:                          # its record: the event and ~100 bytes
                _exportable(event, position, len(msgpack.packb(wire)), names)
            grown += len(row)
            if size + grown > MAX_STORED:
                size, exact = self._past_stored(duel_id, size, exact, grown, f"event {position} ({event.kind})")
            # made with their fields at once (``made``): a frozen ``__init__`` a field at a time
            # was ~1 µs a record, two of them an event (issue 25)
            events_rows.append(made(library.EventRow, originator_id=duel_id, originator_version=position + 1,
                                    topic=event.kind, state=row,
                                    seen=library.seen(event, history, negated, at,
                                                      library.what_if(live.header, position)),
                                    follows=prev if i == 0 else None))
            written.append(made(Record, position=position, event=event, recorded=when, prev_hash=prev,
                                hash=digest_i, reverted_by=None))
            prev = digest_i
            if stream.snapshots and history.position % SNAPSHOT_EVERY == 0:
                snapshots.append((history.position, _pack_snapshot(history.to_data()), prev))
        count = history.position
        if violation is not None and fresh:            # only the facts the kept events name
            added = facts.subset(referenced_codes(events[:len(events_rows)]) & fresh)
            cards = live.cards.merged(added) if len(added) else live.cards
        digest, effects_digest = live.cards_digest, live.effects_digest
        read_back: tuple[tuple[bytes, ...], tuple[CardDB, bytes, bytes | None]] | None = None
        if len(cards) > MAX_CARDS:
            raise InputError(say("the duel's events name the facts of {n_cards:,} cards; a replay file "
                                 "holds at most {max_cards:,}: the duel could not be exported; nothing "
                                 "was written",
                                 n_cards=len(cards), max_cards=MAX_CARDS))
        if len(added):
            batch = sorted(added.to_json_list(), key=lambda c: c["code"])
            record: dict[str, Any] = {"cards": batch}
            effects = added.effects_record()      # the scripts' facts of these cards, signed with them
            if effects is not None:
                record["effects"] = effects
                effects_digest = _chained(effects_digest, effects)
            card_row = msgpack.packb(record)
            grown += len(card_row)
            if size + grown > MAX_STORED:
                size, exact = self._past_stored(duel_id, size, exact, grown, f"the facts of {len(added):,} new cards")
            rows.append(StoredEvent(f"{duel_id}/cards", count, CARDS_TOPIC, card_row))
            digest = _chained(digest, batch)
            read_back = self._read_back(duel_id, live, added, record, card_row, digest, effects_digest)
        if count == 0 and violation is not None:        # nothing legal to record: no duel at all
            return 0, violation, []
        status = stream.status(history)
        key = self.key
        # the header never changes: its digest is the one the last anchor signed (checked when loaded)
        header_digest = live.head.header if live.head is not None else live.header.digest
        message = _head_message(duel_id, count, prev, header_digest, digest, status, effects_digest, pack)
        head = made(Head, count=count, hash=prev, header=header_digest, cards=digest, status=status,
                    key=key.public.raw, signature=b"", effects=effects_digest, mac=key.mac(message), path=None,
                    left=0)
        rows += events_rows
        snapshots = [(position, data, at, self._snapshot_message(duel_id, position, at, data))
                     for position, data, at in snapshots]
        if gather is None and self._committer is not None:
            # the receipt of this append and its snapshots are leaves of its group's tree too: one
            # signature a group, not one more an append or a snapshot (issue 25); ``receipt_proof``
            # hands the receipt to whoever issues it
            signed_at = _now()[0] if receipted else ""
            receipt = signing.receipt_message(2, duel_id, count, prev, signed_at) if receipted else None
            pending = self._committer.submit(rows, list(other_snapshots), (duel_id, message, head), receipt,
                                             snapshots)
            head = pending.head
            if pending.proof is not None:
                with self._guard:
                    if len(self._proofs) >= _PROOFS_KEPT:     # the oldest, whose caller is gone: it signs alone
                        del self._proofs[next(iter(self._proofs))]
                    self._proofs[(duel_id, count, prev)] = (signed_at, *pending.proof)
        else:
            head = head.signed(key.sign(message))
            rows.append(_head_row(duel_id, head))
            snapshot_rows = [*other_snapshots, *(self._snapshot_row(duel_id, *snapshot) for snapshot in snapshots)]
            if gather is None:
                self._commit_rows(rows, snapshot_rows)
        if gather is None and read_back is not None:
            _keep_card_facts(duel_id, *read_back)
        stream.use_cards(history, cards)
        done = _Live(history, live.header, cards, digest, head, stream, effects_digest, live.access, size + grown,
                     exact, tuple(written) if live.head is None else ())
        if gather is None:
            self._remember(duel_id, done)
        else:
            gather.append((duel_id, rows, snapshot_rows, done))
        return count, violation, written

    def receipt_proof(self, duel_id: str, events: int, head: bytes) -> tuple[str, bytes, bytes, int] | None:
        """The receipt (version 2) of this process's append that left ``duel_id`` at ``events``
        events ending in ``head``, signed as a leaf of its group commit's tree: its time, the
        group's signature, its audit path and sides; taken once. None when there is none here
        (not group-committed, or no longer kept): the caller signs one alone."""
        with self._guard:
            return self._proofs.pop((duel_id, events, head), None)

    @staticmethod
    def _read_back(duel_id: str, live: _Live, added: CardDB, record: dict[str, Any], card_row: bytes,
                   digest: bytes, effects_digest: bytes | None
                   ) -> tuple[tuple[bytes, ...], tuple[CardDB, bytes, bytes | None]] | None:
        """The duel's card records once ``card_row`` (``record``) is written after those
        ``live.cards`` were read from, and their facts exactly as ``_read_cards`` reads them (in
        the records' order),
        made of the facts already checked: kept (``_CARD_FACTS``), the live duel's read after a
        first append validates none of them again (issue 25). None when the records before are
        not the ones kept (nothing is kept then: they are read and checked when next asked)."""
        if (live.cards_digest, live.effects_digest) == (chain.GENESIS, None):
            kept: tuple[tuple[bytes, ...], tuple[CardDB, bytes, bytes | None]] | None = \
                ((), (CardDB(), chain.GENESIS, None))          # no card record before this one
        else:
            kept = _CARD_FACTS.get(duel_id)
        if kept is None or kept[1][1:] != (live.cards_digest, live.effects_digest):
            return None
        facts = kept[1][0].merged(added.subset([card["code"] for card in record["cards"]]))
        if "effects" in record:
            facts = facts.with_effects_record(record["effects"])
        return (*kept[0], card_row), (facts, digest, effects_digest)

    def _commit_rows(self, rows: list[StoredEvent], snapshot_rows: list[StoredEvent]) -> None:
        """Rows and their snapshots in one transaction (the group commit's, in the service)."""
        if self._committer is not None:
            self._committer.submit(rows, snapshot_rows)
            return
        try:
            self._write_rows(rows, snapshot_rows)
        except BaseException as exc:
            raise self._failed(exc, rows) from None

    def _write_rows(self, rows: list[StoredEvent], snapshot_rows: list[StoredEvent]) -> None:
        """Write rows (of any number of appends) and their snapshots; raises the recorder's
        errors (``IntegrityError``: a position taken). On PostgreSQL one pipelined round trip,
        one transaction (``_PostgresWriter``); on SQLite the recorder's transaction, then the
        snapshots (a cache: one that fails to be written is fine)."""
        from eventsourcing.persistence import PersistenceError
        if self._postgres is not None:
            self._postgres.write(rows, snapshot_rows)
            return
        self.events.insert_events(rows)
        if snapshot_rows:
            try:
                self.snapshots.insert_events(snapshot_rows)
            except PersistenceError:
                self._insert_snapshots(snapshot_rows)

    def _failed(self, exc: BaseException, rows: list[StoredEvent]) -> BaseException:
        """What an append whose rows could not be written raises: a conflict when another
        writer took its position, the store busy or not answering (``StoreUnavailable``, as it
        was raised: nothing written, or the outcome unknown), else the store's refusal (nothing
        of it was written)."""
        from eventsourcing.persistence import IntegrityError, PersistenceError
        if isinstance(exc, StoreUnavailable):
            return exc
        if isinstance(exc, IntegrityError):
            return self._conflict(rows)
        if isinstance(exc, PersistenceError):
            return self._refused(exc)
        if isinstance(exc, Exception):
            return StoreError(say("the store {name} failed to write (nothing was written): {exc}",
                                  name=self.name, exc=exc))
        return exc

    def _insert(self, rows: list[StoredEvent], marker: bool = False) -> None:
        from eventsourcing.persistence import IntegrityError, PersistenceError
        try:
            self.events.insert_events(rows)
        except IntegrityError:
            if marker:                                 # another process created the store first
                return
            raise self._conflict(rows) from None
        except PersistenceError as exc:
            raise self._refused(exc) from None

    def _conflict(self, rows: list[StoredEvent]) -> ConflictError:
        # the stream appended to: its own events' (an append's first rows may be claims of others',
        # and streams made with it: ``append_records``), else the one made
        own = [r for r in rows if "/" not in str(r.originator_id)]
        duel_id = str(next((r for r in own if r.originator_version), own[0] if own else rows[0]).originator_id
                      ).split("/")[0]
        self._forget(duel_id)
        event = next((r for r in rows if r.originator_id == duel_id and r.originator_version > 0), rows[0])
        return ConflictError(say("duel {duel_id}: position {originator_version} was written by another "
                                 "writer first; nothing of this append was recorded",
                                 duel_id=duel_id, originator_version=event.originator_version - 1))

    def _outcome_unknown(self, exc: BaseException) -> WriteOutcomeUnknown:
        """A write whose connection was lost once it was sent, and whose outcome cannot be learned."""
        return WriteOutcomeUnknown(
            say("the store at {name} stopped answering after the write was sent ({reason}): the write's "
                "outcome is unknown: read the duel's head before retrying. A retry that states the "
                "expected position (--expected N, ?expected=N) is safe: it is refused as a conflict if "
                "the write was stored; one that does not may record the events twice",
                name=self.name, reason=_reason(exc, self._secret)))

    def _refused(self, exc: Exception) -> StoreError | StoreUnavailable:
        """A write of which nothing was written: the store busy or not answering when the database
        said so (``_outage_error``: a connection lost before its COMMIT reached the server, known
        not written, is the store unavailable, 503, exit 75, not a write at fault), else refused."""
        return (self._outage_error(exc, written=True)
                or StoreError(say("the store {name} refused the write (nothing was written): {exc}",
                                  name=self.name, exc=exc)))

    def _insert_snapshots(self, rows: list[StoredEvent]) -> None:
        """Snapshots are a cache: one another process wrote, or that fails to be written, is fine.
        All in one transaction first (a commit each was most of recording a long duel: issue 25)."""
        from eventsourcing.persistence import PersistenceError
        if len(rows) > 1:
            try:
                self.snapshots.insert_events(rows)
                return
            except PersistenceError:
                pass
        for row in rows:
            try:
                self.snapshots.insert_events([row])
            except PersistenceError:
                pass

    def _past_stored(self, duel_id: str, size: int, exact: bool, grown: int, what: str) -> tuple[int, bool]:
        """The stream's rows' bytes, exact, when ``grown`` more bytes of rows on ``size`` (at most
        that, unless ``exact``) may pass ``MAX_STORED``; InputError naming ``what`` when they do."""
        from ..replay_file import MAX_EXPANDED, MAX_STORED
        if not exact:
            size, exact = self._stored_size(duel_id), True
        if size + grown > MAX_STORED:
            raise InputError(say("{what}: the duel's records would take {size:,} bytes; a replay file's "
                                 "body holds at most {max_expanded:,} (a duel's records {max_stored:,}): "
                                 "the duel could not be exported; nothing was written",
                                 what=what, size=size + grown, max_expanded=MAX_EXPANDED, max_stored=MAX_STORED))
        return size, exact

    def _hold_new(self, stream_id: str, header: Header, anchor: StoredEvent | None, cards_rows: list[StoredEvent],
                  access: StoredEvent | None) -> None:
        """Hold the head of a stream ``opened`` found without events, as ``_load_head`` would
        read and check it from the same rows: a table's first append through the service read
        it again, a statement and an Ed25519 check more (issue 25). Not over a head held past
        it, nor while an append of this process to it is under way (never waited for), nor a
        head that fails a check (the append's own read says why)."""
        if self.readonly:
            return
        lock = self._lock_for(stream_id)
        if not lock.acquire(blocking=False):
            return
        try:
            held = self._cached(stream_id)
            if held is not None and held.history.position > 0:
                return
            try:
                live = self._head_of(stream_id, header, 0, header.root, self._decoded_anchor(stream_id, anchor),
                                     cards_rows, access)
            except (StoreError, VerificationError):
                return
            self._remember(stream_id, live)
        finally:
            lock.release()

    def _snapshot_row(self, duel_id: str, position: int, data: bytes, at: bytes, message: bytes,
                      group: tuple[bytes, bytes, int] | None = None) -> StoredEvent:
        """A snapshot's row: its ``message`` (``_snapshot_message``) signed alone, or with its group
        commit (``group``: the group's signature, its audit path and sides, as an anchor's), and MAC'd."""
        from eventsourcing.persistence import StoredEvent
        key = self.key
        snap = {"d": data, "z": 1, "h": at, "key": key.public.raw,
                "sig": key.sign(message) if group is None else group[0], "mac": key.mac(message)}
        if group is not None:
            snap["path"], snap["left"] = group[1], group[2]
        return StoredEvent(duel_id, position, SNAPSHOT_TOPIC, msgpack.packb(snap))

    # -- branches ---------------------------------------------------------------------------------

    def branch(self, duel_id: str, at: int, title: str = "", attachments: dict[str, dict] | None = None,
               stream_id: str | None = None, claims: dict[str, dict[str, dict]] | None = None) -> str:
        """A new duel whose history is the first ``at`` events of ``duel_id`` (their times and
        chain kept: the branch's first ``at`` hashes are the parent's); the parent is untouched.
        ``attachments`` are written with it, in its transaction (the access it inherits), and
        ``claims`` as ``record`` writes them, for ``stream_id`` (a request's key: ``key_claim``)."""
        duel = self.load(duel_id)
        if duel.header.kind != "duel":
            raise StoreError(say("{duel_id} is a {header_kind}'s stream: only a duel is branched",
                                 duel_id=duel_id, header_kind=duel.header.kind))
        if not 0 < at <= len(duel.records):
            raise StoreError(say("duel {duel_id} has {n_records} events: branch at 1..{n_records}, not "
                                 "{at}",
                                 duel_id=duel_id, n_records=len(duel.records), at=at))
        from ..replay_file import ReplayFileError, check_body
        try:                       # its first events may name card facts (an import's) no file of so few holds
            check_body(duel.events[:at], duel.cards)
        except ReplayFileError as exc:
            raise InputError(say("a branch of duel {duel_id} at {at} could never be exported ({exc}); "
                                 "nothing was written",
                                 duel_id=duel_id, at=at, exc=exc)) from None
        child, _count, _violation = self.record(
            duel.events[:at], title or f"branch of {duel_id} at {at}", times=duel.times[:at], cards=duel.cards,
            check=False, root=duel.header.root, secret=duel.header.secret, parent=duel_id, branch_at=at,
            source=duel.header.source, provenance={"branched": chain.now()}, attachments=attachments,
            stream_id=stream_id, claims=claims)
        assert child is not None
        return child


def _pack_snapshot(data: dict) -> bytes:
    """A snapshot's data as stored: msgpack, deflated (a state is mostly card rows alike: 7.3 KB
    is 2.2 KB, so snapshots every 16 events hold fewer bytes than plain ones every 32 did, and a
    seek folds half as many events after one: issue 25)."""
    return zlib.compress(msgpack.packb(data), 1)
