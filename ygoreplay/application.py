"""The application layer: what ygoreplay does, with one result shape each.

The command line (``cli/``) and the HTTP service are thin faces over these functions and the
``Records`` class; neither reaches into the store's internals. Results are plain dataclasses with
``to_dict()``, the shape ``--json`` prints and the service answers; errors are the package's own
(``errors.py``), which each face maps to an exit code or an HTTP status in one place.

* ``check``: fold events through the rules, every violation and override (``checking.py``);
* ``Records``: the organiser's store (record, append, import, export, branch, roll back, note,
  verify, list), signing what it writes and what leaves it with the organiser's key;
* ``export_file``, ``audit_source``: a file exported again, a duel re-checked, with the file's
  verification of ``trust.py``.
"""
from __future__ import annotations

import gc
import hashlib
import os
import re
import secrets
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from . import chain
from .access import (CALL, ENTERS_AS, OPENING, PLAYERS, TABLE, VISIBILITIES, WRITERS, Access, Seating,
                     closed_by_match, digest, linkable_into, may_call, may_write, new_token, off_side, opening_claim,
                     view_of, within)
from .cards import CardDB
from .checking import (  # noqa: F401  (check and the result shapes: the application's too)
    CheckReport, check, check_source, checked_dict, override_dict, result_dict, violation_dict, witness_dict)
from .errors import ConflictError, Forbidden, InputError, Unconfirmed, VerificationError
from .events import ENTERED_BY, DuelStarted, Event, JudgeNote, cards_named, from_dict
from .exchange import make_replay, ruleset_and_players
from .formats import EDOPRO
from .i18n import N_, say
from .jsonl import dumps as jsonl_dumps
from .library_search import released
from .receipts import Receipt, Witness, behind_witness, issue, not_behind, verify as verify_heads
from .replay_file import HEADER_LIST, ReplayFile, ReplayFileError, check_event, check_header, verify_chain
from .rules import AuditReport, RuleViolation, audit
from .signing import OrganiserKey, PublicKey
from .state import DuelState, Violation
from .source import stored_cut
from .errors import StoreError
from .store.listing import DuelInfo
from .store.reading import Store
from .store.records import STORE_ID, Record, key_claim, new_id
from .store.verifying import Verification

if TYPE_CHECKING:
    from .importing import ImportResult
    from .openings import SealReport
    from .source import Source
from .text import checked
from .trust import Signature, origin_of, seals_of, signable, signature_of
from .views import CARDS_ELSEWHERE, VIEWS, DeviceNames, out_of_sight, redactor_of, unseen


def export_file(replay: ReplayFile, view: str, trust: Iterable[PublicKey]) -> ReplayFile:
    """A file for ``view`` from a ``.ygr`` file, which must hold up first (chain intact, signed by
    a trusted key): nothing unverified is signed again. A judge file gives any view, and its own
    chain goes into a judge copy; a view gives only itself."""
    if view not in VIEWS:
        raise InputError(say("unknown view {view!r} (views: {names_list})",
                             view=view, names_list=', '.join(VIEWS)))
    signable(replay, trust)
    if replay.view != "judge":
        if replay.view != view:
            raise InputError(say("a {view} view cannot give the {view2} view", view=replay.view, view2=view))
        return replay
    if not replay.commit_key:
        raise InputError(say("a judge file without its secret cannot give views"))
    return make_replay(replay.events, replay.times, replay.cards, view, replay.root, replay.commit_key,
                       replay.match, replay.source, replay.created, chain=replay.chain)


@dataclass
class AuditResult:
    """A duel re-checked whole: the rules (as far as its record knows), the chain, the signature,
    the result."""

    events: int
    report: AuditReport
    chain: str                                 # "intact", "anchored", "none" (JSON Lines), "broken"
    first_bad: int | None = None
    problem: str = ""
    signature: Signature | None = None
    state: DuelState | None = None

    def __repr__(self) -> str:
        rules = "legal" if self.report.legal else f"{len(self.report.violations)} violation(s)"
        return f"<AuditResult {self.events} events, {rules}, chain {self.chain}, {'ok' if self.ok else 'NOT ok'}>"

    @property
    def ok(self) -> bool:
        """No violation and nothing broken (who signed it is verify's question)."""
        return self.chain != "broken" and not self.report.violations

    def to_dict(self) -> dict:
        r = self.report
        history = r.history
        return {
            "events": self.events,
            "violations": [violation_dict(v) for v in r.violations],
            "overrides": [override_dict(o) for o in r.overrides],
            "rollbacks": [{"index": pos, "to": e.to, "judge": e.judge, "reason": e.reason}
                          for pos, e in history.rollbacks],
            "reverted": sorted(set(history.reverted) - set(history.struck)),
            **witness_dict(history),
            "chain_ok": self.chain != "broken", "chain": self.chain, "first_bad_link": self.first_bad,
            "problem": self.problem, "rules_checked": True, "checked": checked_dict(r),
            "signature": self.signature.to_dict() if self.signature else None,
            "final": result_dict(self.state) if self.state else None}


def audit_source(source: "Source", store: Store | None, trust: Iterable[PublicKey],
                 witness: Witness | None = None) -> AuditResult:
    """Re-check a duel opened for study: a stored duel is verified end to end (and against its
    ``witness``), a file's chain and signature are checked, and its rules are folded again as far
    as its record knows (a view is the record of what its viewer saw: what it could not decide
    is listed, never called)."""
    signature, chain, first_bad, problem = None, "none", None, ""
    if source.replay is not None:
        first_bad = source.chain_problem()
        chain = "intact" if first_bad is None else "broken"
        signature = signature_of(source.replay, trust)
    elif source.duel_id is not None and store is not None:
        verification = verify_heads(store, source.duel_id, (), witness)[0]
        chain = "anchored" if verification.ok else "broken"
        first_bad, problem = verification.first_bad, verification.problem
    report = source.audit()
    state = report.state if source.events else None
    return AuditResult(len(source.events), report, chain, first_bad, problem, signature, state)


def trusted_keys(specs: Iterable[str], key: OrganiserKey | None = None) -> list[PublicKey]:
    """The public keys given (``ed25519:...`` or key files) and the local organiser's own."""
    keys = [PublicKey.parse(spec) for spec in specs]
    local = key or OrganiserKey.load()
    if local is not None:
        keys.append(local.public)
    return keys


# -- the store --------------------------------------------------------------------------------------

@dataclass
class Recorded:
    """A duel written into the store: how many events it had, how many were kept, and the
    violation that stopped it (recording keeps the legal prefix)."""

    id: str | None
    events: int
    stored: int
    violation: RuleViolation | None = None
    violations: list[Violation] = field(default_factory=list)    # imports: what the audit found
    skipped: bool = False                                        # already in the store
    receipt: Receipt | None = None                               # what the store signed it held
    flags: list[Violation] = field(default_factory=list)         # a witnessed duel's: kept, flagged
    earlier: str | None = None                                   # recorded again: the first duel of them

    def to_dict(self) -> dict:
        return {"id": self.id, "events_read": self.events, "events_stored": self.stored,
                "violation": violation_dict(self.violation) if self.violation else None,
                "violations": [violation_dict(v) for v in self.violations], "skipped": self.skipped,
                "flags": [violation_dict(f) for f in self.flags],
                "receipt": self.receipt.to_dict() if self.receipt else None,
                "witnessed": self.receipt.witnessed if self.receipt else None,
                **({"earlier": self.earlier} if self.earlier else {})}


@dataclass
class Released:
    """A duel or a match the organiser released (``Records.release``): whether it has ended (what
    it hid is every reader's now) or not yet (at its end), and its access record as written."""

    id: str
    kind: str
    ended: bool
    access: Access

    def to_dict(self) -> dict:
        return {"id": self.id, "released": True, "ended": self.ended}


@dataclass
class Visibility:
    """A duel whose visibility the organiser changed (``Records.set_visibility``): its access
    record as written, and the spectator token issued with it (shown once: only its digest is
    kept), for a duel that had none and is now unlisted."""

    id: str
    was: str
    access: Access
    spectator: str | None = None
    #: its what-if branches (and theirs) narrowed with it (``Records._branches_within``)
    narrowed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"id": self.id, "visibility": self.access.visibility, "was": self.was,
                **({"tokens": {"spectator": self.spectator}} if self.spectator else {}),
                **({"branches": self.narrowed} if self.narrowed else {})}


class Imports:
    """The stored duels imported from a file, by what names the file: a judge file's head hash
    (its header's ``file_head``), an EDOPro replay's SHA-256 (its ``source``): one record is one
    duel, however often its file comes. Said by a header its signed anchors name
    (``DuelInfo.signed``), never by one altered in the database, nor by a branch. The oldest
    stands; one imported from a file no trusted key signed (its header says ``unverified``)
    stands only for another such import, and after any verified one: a copy of a judge file
    signed by anyone has its head (an EDOPro replay's exported and so imported, its digest), and
    taken as the store's word, the genuine file was skipped as stored, the copy answered for it."""

    def __init__(self, duels: Iterable[DuelInfo] = ()) -> None:
        self._found: tuple[dict[bytes | str, DuelInfo], dict[bytes | str, DuelInfo]] = ({}, {})
        for info in duels:
            if info.signed and not info.parent:
                head, digest = info.provenance.get("file_head"), info.source.get("sha256")
                for key in (head if isinstance(head, bytes) else None, digest if isinstance(digest, str) else None):
                    if key:          # a file's source is its maker's: a digest that is no string names none
                        self.add(key, info)

    def add(self, key: bytes | str, info: DuelInfo) -> None:
        """``info`` imported from the file ``key`` names, unless an earlier duel stands for it."""
        self._found[bool(info.source.get("unverified"))].setdefault(key, info)

    def get(self, key: bytes | str, unverified: bool = False) -> DuelInfo | None:
        """The duel that stands for the file ``key`` names, for an import of it that is
        ``unverified`` (no trusted key signed it) or not; None when none does."""
        verified, others = self._found
        found = verified.get(key)
        return found if found is not None or not unverified else others.get(key)


class Records:
    """The organiser's store of duels: every way a duel gets in, changes and goes out.

    Every write answers with a receipt (``receipts.py``) signed by the organiser key, and hands
    it to the ``witness`` when there is one: what proves later that the store was cut back."""

    def __init__(self, store: Store, witness: Witness | None = None) -> None:
        self.store = store
        self.witness = witness

    def _receipt(self, duel_id: str, count: int, head: bytes | None = None) -> Receipt:
        """The one place a write's receipt is made (and witnessed)."""
        return issue(self.store, duel_id, count, head, self.witness)

    def _not_behind(self, duel_id: str, refused: str = N_("nothing was appended")) -> None:
        """Nothing is appended onto, nor a receipt signed for, a duel behind the head its
        witness kept (``receipts.not_behind``)."""
        not_behind(self.store, duel_id, self.witness, refused)

    def record(self, events: list[Event], title: str, cards: CardDB | None = None,
               attachments: dict[str, dict] | None = None,
               release: tuple[str | None, str | None, str | None] = (None, None, None),
               witnessed: bool = False, entered_by: str = "recorder", strict: bool = False,
               repeat: str | None = None) -> Recorded:
        """Record a duel, checking every event: the legal prefix is kept (no duel when nothing
        before the first violation is legal); ``strict``, all of them or no duel (RuleViolation:
        a duel made with its set-up, ``POST /duels``' ``set_up``). ``attachments`` are written with it (the service's
        access record); else ``release`` (``access.release_settings``), given, says when what it
        hid becomes everyone's once it is served. ``witnessed`` records it as played at a table
        (its duel_started says so): an illegal event is kept, flagged; an event that names no
        one who entered it is ``entered_by``'s. ``repeat`` (a file recorded: ``ygoreplay record``)
        says what the same events recorded before the same way (release, witnessed, entered by;
        their digest is the first duel's claim) become: ``skip``, not stored twice, as an imported
        file is not (that duel answered as ``skipped``); ``again``, another duel, the first one
        named (``earlier``): a sample file recorded as many duels (a demonstration, a test's)."""
        claim = f"record-{_digest_of(events, release, witnessed, entered_by)}" if repeat else None
        if witnessed:
            events = _witnessed(events)
        events = _stamped(events, None, entered_by, _says_witnessed(events))     # as they are stored
        earlier = self._recorded_as(claim, events, cards) if claim is not None else None
        if earlier is not None and repeat == "skip":
            return Recorded(earlier.id, len(events), earlier.events, skipped=True)
        if earlier is not None:
            claim = None                          # the claim stays the first duel's
        if attachments is None and release != (None, None, None):   # served without access: private
            attachments = {"access": Access("private", release=release[0], event=release[1],
                                            release_at=release[2]).to_dict()}
        title, attachments = checked(title, "the title", 500), _moded(events, attachments)
        stream_id = new_id()
        try:
            duel_id, stored, violation = self.store.record(
                events, title, cards=cards, attachments=attachments, strict=strict, stream_id=stream_id,
                claims=key_claim(claim, stream_id) if claim is not None else None)
        except ConflictError:
            if claim is None:
                raise
            earlier = self._recorded_as(claim, events, cards)
            if earlier is not None and repeat == "skip":  # another writer recorded them meanwhile
                return Recorded(earlier.id, len(events), earlier.events, skipped=True)
            # a claim no such duel answers for (rewritten in the database) is no one's
            duel_id, stored, violation = self.store.record(events, title, cards=cards, attachments=attachments,
                                                           strict=strict)
        return Recorded(duel_id, len(events), stored, violation,
                        receipt=self._receipt(duel_id, stored) if duel_id else None,
                        flags=self.store.flags(duel_id) if duel_id and _says_witnessed(events) else [],
                        earlier=earlier.id if earlier is not None else None)

    def _recorded_as(self, claim: str, events: list[Event], cards: CardDB | None) -> DuelInfo | None:
        """The duel a file's events (``events``, as a record stores them) were recorded as
        (``record``'s ``repeat``), if the store vouches for one: the claim's duel, its header
        signed, no branch, its events those recorded (as its signed anchors vouch for them), each
        whole, and as many as a record of them keeps (all, or the prefix before the first
        violation: the next one is refused by the rules). The claim is an unsigned row: its kinds
        alone compared, one rewritten in the database to name any signed duel of as many events
        of the same kinds (or the legal start of the file) had ``record --once`` skip the file,
        the duel never recorded."""
        held = self.store.attachment(STORE_ID, f"claim/{claim}")
        try:
            info = self.store.info(str(held["stream"])) if held is not None and "stream" in held else None
        except StoreError:
            return None
        if info is None or not info.signed or info.parent or not 0 < info.events <= len(events):
            return None
        try:                              # as its signed anchors vouch for it, never rows rewritten to fit
            kept = [record.event for record in self.store.load(info.id, verified=False).records]
        except (StoreError, VerificationError):
            return None
        if kept != events[:len(kept)]:
            return None
        if len(kept) < len(events) and not any(
                v.index == len(kept) for v in audit(events[:len(kept) + 1], cards or self.store.cards).violations):
            return None                   # a record of them would have kept the next event
        return info

    def release(self, stream_id: str) -> Released:
        """The organiser's call that the event has ended, for a duel or a match alike (the one
        command ``POST /duels/{id}/release``, ``POST /matches/{id}/release`` and ``ygoreplay
        release`` call): what it hid is released to every reader once it has ended, under the
        ``event`` release policy only (``Access.release_now``). A match's release is its duels'
        too: a duel of a match with no release settings of its own follows its match
        (``library_search.released``), so it is released by its match's call, never its own (the
        game's hidden cards are the player's deck for the games still to come); asked of it, the
        call is refused, naming the match, and nothing is written."""
        kind = self.store.kind_of(stream_id)         # a stream that is not there is named so
        access = self.access(stream_id)
        match = self.store.match_of(stream_id) if kind == "duel" else None
        if match is not None and access.release is None and access.event is None:
            raise ConflictError(say("duel {duel} is a game of match {match}: it follows its match's release "
                                    "(ygoreplay release {match}, POST /matches/{match}/release); nothing was "
                                    "written", duel=stream_id, match=match))
        access.release_now(kind == "match" or match is not None)      # refused before anything is written

        def released(stored: dict | None) -> dict:   # of the latest version: another's change is kept
            latest = Access.from_dict(stored or {"visibility": "private"})
            latest.release_now(kind == "match" or match is not None)
            return latest.to_dict()
        access = Access.from_dict(self.store.attach(stream_id, "access", released))
        return Released(stream_id, kind, bool(self.store.info(stream_id).status.get("ended")), access)

    def set_visibility(self, duel_id: str, visibility: str) -> Visibility:
        """The organiser's change of who may find and read a duel (the one command ``ygoreplay
        visibility``, ``record --visibility`` and ``import --visibility`` call): ``public``, found
        by the library's search and read with no token; ``unlisted``, read with its spectator
        token (one is issued, shown once, when it has none: a duel recorded private has none);
        ``private``, its table's tokens only (its spectator token is dropped, as ``Access.issue``
        gives a private duel none). Written as a new version of its access record, the earlier
        ones kept. A duel of a match is never narrower than its match (``linkable_into``: the
        match shows its duels to whoever may watch it): that is refused, naming the match, and
        nothing is written. A judge's what-if branch is never wider than the duel it branched from
        (``access.within``: its first events are its parent's, and so is the board it plays on):
        widening one past its parent is refused, naming the parent; narrowing a duel narrows its
        branches, and theirs, with it (``_branches_within``): a duel made private was read
        whole up to where each branch left, by anyone, through the branch still public."""
        if visibility not in VISIBILITIES:
            raise InputError(say("visibility is one of {choices}", choices=", ".join(VISIBILITIES)))
        if self.store.kind_of(duel_id) != "duel":
            raise InputError(say("{id} is a match: the visibility is a duel's (a match's is given when it is "
                                 "created)", id=duel_id))
        parent = self.store.header(duel_id).parent
        made: list = []                 # (was, token issued): of the version the change was made of

        def allowed() -> None:
            # the match judged again with each version read: a link writes the duel's next access
            # version with it (``match.commands.record``), so one written meanwhile makes this a
            # conflict, read again here, and a private duel never stays in a public match
            match = self.store.match_of(duel_id)
            if match is not None:
                wide = self.access(match).visibility
                if not linkable_into(visibility, wide):
                    raise ConflictError(say("duel {duel} is a game of match {match}, which is {visibility}: a duel "
                                            "is never narrower than its match; nothing was written",
                                            duel=duel_id, match=match, visibility=wide))
            # the parent read again with each version too: its narrowing narrows this (a conflict)
            bound = self.access(parent).visibility if parent else None
            if bound is not None and not within(visibility, bound):
                raise ConflictError(say("duel {duel} is a what-if branch of duel {parent}, which is {visibility}: a "
                                        "branch is never wider than the duel it branched from; nothing was "
                                        "written", duel=duel_id, parent=parent, visibility=bound))

        def changed(stored: dict | None) -> dict:   # of the latest version: a release meanwhile is kept
            allowed()
            access = Access.from_dict(stored or {"visibility": "private"})
            was, token = access.visibility, None
            access.visibility = visibility
            if visibility == "private":
                access.tokens.pop("spectator", None)
            elif visibility == "unlisted" and "spectator" not in access.tokens:
                token = new_token()
                access.tokens["spectator"] = digest(token)
            made[:] = [was, token]
            return access.to_dict()
        held, narrowed = self.access(duel_id), []
        narrowing = held.visibility != visibility and within(visibility, held.visibility)
        if narrowing:
            # its branches first (a failure on the way leaves the duel as wide as it was: the same
            # command then does it all again), each no wider than the duel is to be
            allowed()
            narrowed = self._branches_within(duel_id, Access.from_dict({**held.to_dict(), "visibility": visibility}))
        access = Access.from_dict(self.store.attach(duel_id, "access", changed))
        if narrowing or (made[0] != visibility and within(visibility, made[0])):
            # and a branch made (or widened) meanwhile, of the access read before this change
            narrowed += [b for b in self._branches_within(duel_id, access) if b not in narrowed]
        return Visibility(duel_id, made[0], access, made[1], narrowed)

    def _branches_within(self, duel_id: str, bound: Access, only: str | None = None) -> list[str]:
        """Every what-if branch of ``duel_id`` (or its branch ``only``), and theirs, made no wider
        than ``bound``, its access as written: a branch inherits its parent's access when it is
        made (``branch``) and plays the parent's first events, so a parent narrowed afterwards
        (``set_visibility``) left them readable through its branches, by anyone on a public one,
        by the dropped spectator token on an unlisted one. A branch already within it is left as
        it is (a version written only when one is narrowed). Returns the branches narrowed."""
        children = self.store.branches() if only is None else {}
        stack = [(child, bound) for child in ([only] if only is not None else children.get(duel_id, ()))]
        seen: set[str] = set()
        narrowed_ids: list[str] = []
        while stack:
            child, limit = stack.pop()
            if child in seen:
                continue
            seen.add(child)

            def narrowed(stored: dict | None, limit: Access = limit) -> dict:
                access = Access.from_dict(stored or {"visibility": "private"})
                if within(access.visibility, limit.visibility):    # narrowed meanwhile: kept so
                    return access.to_dict()
                access.visibility = limit.visibility
                if limit.visibility == "private":
                    access.tokens.pop("spectator", None)
                elif "spectator" not in access.tokens and "spectator" in limit.tokens:
                    access.tokens["spectator"] = limit.tokens["spectator"]   # its parent's, as it inherits
                return access.to_dict()
            held = self.access(child)
            if not within(held.visibility, limit.visibility):
                held = Access.from_dict(self.store.attach(child, "access", narrowed))
                narrowed_ids.append(child)
            stack.extend((grandchild, held) for grandchild in children.get(child, ()))
        return narrowed_ids

    def append(self, duel_id: str, events: list[Event], expected: int | None = None,
               role: str = "organiser", entered_by: str | None = None, confirmed: bool = False) -> Receipt:
        """Check and append events, all or nothing: the receipt of the new head (its ``events``
        is the new length). ``role`` is who writes (``access.WRITERS``); the command line is
        the organiser, the store's owner, entering as ``entered_by`` (``append_records``);
        ``confirmed``: a turn change that looks entered twice is stored anyway (``repeated_turn``)."""
        if not events:
            self._not_behind(duel_id)
            count = self.store.append(duel_id, events, expected_position=expected)
            return self._receipt(duel_id, count)
        return self.append_records(duel_id, events, expected, role, entered_by, confirmed=confirmed)[1]

    def append_records(self, duel_id: str, events: list[Event], expected: int | None = None,
                       role: str | Seating = "organiser", entered_by: str | None = None,
                       names: Callable[[str, int], dict[str, str] | None] | None = None,
                       made_on: int | None = None, confirmed: bool = False
                       ) -> tuple[list[Record], Receipt | None, list[Violation]]:
        """As ``append``, and the records written (a live service hands them to its followers)
        and their flags (``flags``: none but in a witnessed duel, read only there); no receipt
        when there were no events. The one door of every event into a stored duel:
        who may write each kind is checked here, and the rules check each event (a judge's
        ruling names its judge and says why, MATCH-08), whichever face sent it. In a witnessed
        duel each event is stamped with who entered it: a token's role (an event that names
        another is refused), else ``entered_by`` (the organiser's, the command line's ``--by``)
        where it names no one; a duel created witnessed must begin so (``access.MODES``).
        Events entered as a player (a player's token, ``--by p0``) name cards as that player's
        view does (``_stamped``): ``names(view, count)`` gives the view's name of each record id
        after ``count`` events where the caller keeps it (a live duel's view), else None, and
        they are derived from the stored record. A turn change that looks entered twice (two
        devices at one table: ``repeated_turn``, judged on the head it meets, ``made_on`` the
        head its device saw when it was entered) is refused, ``Unconfirmed``, unless ``confirmed``.
        A match's token (``role`` a ``Seating``) writes as the seat decided here, on the head the
        append is judged on and written at only (``_seated``)."""
        if not events:
            return [], None, []
        opening, head = self._opening_again(duel_id, events, role) if expected == 0 else (0, None)
        if opening == len(events):           # its set-up, sent again by its table: nothing to write
            self._not_behind(duel_id)
            return [], self._receipt(duel_id, opening, head), []
        given, expected = events[opening:], expected if not opening else opening
        for fresh in (False, True):
            # the head this process holds (a table's first append: the one its live duel's load
            # read, ``Store.opened``), else read now; at 0 events it may be behind another
            # process's first append: what is judged as the first events is written at 0 only,
            # and judged again on the stored head when that position is taken or they are refused
            count, witnessed, access = self.store.witnessed(duel_id, fresh)
            if expected is not None and expected != count and not fresh:
                continue                 # the caller counts events this process has not seen
            if count == 0:
                witnessed = _says_witnessed(given)
            acting = role if isinstance(role, str) else role.match_role
            try:
                if isinstance(role, Seating):
                    acting = self._seated(duel_id, role, count, given)
                table = view_of(acting, "witnessed" if witnessed else "machine") == TABLE
                if _as_player(acting, entered_by) or table:
                    # before anything judged on the head: a refusal never tells the what-if's length to
                    # a writer whose view stops where it left (a player's, the table's recorder's)
                    self._not_in_what_if(duel_id, table)
                if made_on is not None and made_on > count:
                    # past the head: no device saw it, and a turn change there would skip ``repeated_turn``
                    raise ConflictError(say(
                        "this entry says it was made when the duel had {made_on} events, but it has {count}: no "
                        "device saw a head the duel never reached. Nothing was written; read the duel again and "
                        "enter it anew", made_on=made_on, count=count))
                written = self._judged_append(duel_id, given, count, witnessed, access,
                                              count if expected is None and isinstance(role, Seating) else expected,
                                              acting, entered_by,
                                              names, None if confirmed else made_on if made_on is not None
                                              else expected if expected is not None else count)
            except Unconfirmed:
                # judged on the head this process held, with no head asked for: another process may
                # have entered the turn's plays since (a legal next turn refused as ``turn_empty``)
                if fresh or expected is not None:
                    raise
                continue
            except (ConflictError, Forbidden, InputError) as exc:
                # an entry in a device's names is pinned to the head its names were read at: taken
                # meanwhile (another writer), it is judged again, once, on the stored head
                again = (isinstance(exc, ConflictError) and expected is None
                         and names_view(acting, entered_by, witnessed) is not None)
                if (count and not again) or fresh:
                    raise
                continue                 # refused or taken at a head held at 0: judged again on the stored one
            break
        receipt = self._receipt(duel_id, written[-1].position + 1, written[-1].hash)
        return written, receipt, self.flags(duel_id, written[0].position, written[-1].position + 1) if witnessed else []

    def _opening_again(self, duel_id: str, given: list[Event], role: str | Seating) -> tuple[int, bytes | None]:
        """How many of ``given``, sent at 0, are the duel's stored events sent again, all of them,
        and the chain hash after them where the store holds it (``Store.opening``):
        the set-up it was made with (``POST /duels``' ``set_up``, the organiser's before its table
        opens), which a table's recorder that knows nothing of it sends as its first append (then
        a steady append, not the set-up's fold and write in a room's opening burst, issue 25);
        else 0 (judged as ever: a conflict at 0). Only to a writer that reads the whole record
        (the judge's view): to any other the answer would say whether its guess of a card it may
        not see is the record's."""
        acting = role if isinstance(role, str) else role.match_role
        count, witnessed, _access = self.store.witnessed(duel_id)
        if not 0 < count <= len(given) or view_of(acting, "witnessed" if witnessed else "machine") != "judge":
            return 0, None
        stored, head = self.store.opening(duel_id, count)
        return (count, head) if stored == given[:count] else (0, None)

    def _seated(self, duel_id: str, seating: Seating, count: int, given: list[Event]) -> str:
        """The seat a match's token writes ``given`` as (``access.Seating``), decided on the head of
        ``count`` events the append is judged on, and written at only (its ``expected``: the head
        read): by the ``duel_started`` stored there, else (at 0) the batch's own. Decided before
        the write, a second process's ``duel_started`` stored in between seated it by the match.
        One that names neither match player there (every player token of the duel a spectator's)
        is refused, nothing written."""
        first = given[0]
        players = (self.store.head_state(duel_id).players or None if count
                   else first.players if first.kind == "duel_started" else None)
        if seating.at(players) not in PLAYERS:
            raise Forbidden(say("the duel's duel_started (stored, or this one) does not name the match's players: "
                                "the match's {role} token has no seat in the duel; nothing was written",
                                role=seating.match_role))
        return seating.role

    def _judged_append(self, duel_id: str, given: list[Event], count: int, witnessed: bool, access: dict | None,
                       expected: int | None, role: str, entered_by: str | None,
                       names: Callable[[str, int], dict[str, str] | None] | None = None,
                       made_on: int | None = None) -> list[Record]:
        """``given`` judged on a head of ``count`` events (``witnessed``, its ``access`` at 0) and
        appended there: who may write each kind, the witness, the mode, who entered it, a turn
        change entered twice (``repeated_turn``; not judged when ``made_on`` is None: confirmed); a
        player's entry in its view's names, turned into record ids at that head and written there
        only (its answers, a refusal of the rules included, name cards as the view does). A
        witnessed duel's recorder reads the table's view (``access.TABLE``): a refusal whose entry
        names a card the table does not see says no more than that the reason is the judge's."""
        what_if = role == "judge" and bool(self.store.head_header(duel_id).parent)   # MATCH-08: the judge's line
        refused = sorted({e.kind for e in given if not may_write(role, e.kind, witnessed, what_if)
                          and not (_a_call(e) and may_call(role, witnessed))})
        if refused:
            kinds, writers = ", ".join(refused), " or ".join(WRITERS.get(refused[0], ("recorder",)))
            if role in PLAYERS and refused[0] not in WRITERS:
                raise Forbidden(say("a {role} may not write {kinds} (it is the {writers}'s; a player records "
                                    "their own side in a witnessed duel only); nothing was written",
                                    role=role, kinds=kinds, writers=writers))
            raise Forbidden(say("a {role} may not write {kinds} (it is the {writers}'s); nothing was written",
                                role=role, kinds=kinds, writers=writers))
        self._not_behind(duel_id)
        held: list[DuelState] = []

        def head_state() -> DuelState:           # read once, for whichever check needs it first
            if not held:
                held.append(self.store.head_state(duel_id))
            return held[0]
        if count == 0:
            self.check_mode(duel_id, access, given)
        elif made_on is not None and expected in (None, count) and any(e.kind == "turn_started" for e in given):
            # (at another head the append is a conflict: the device reconciles, its entry may be stored)
            repeated_turn(head_state, count, made_on, given)
        # whose turn it is, read only for an entry a player's own side decides (``_stamped``)
        read: list[DeviceNames] = []

        def view_names(view: str) -> DeviceNames:
            of = names(view, count) if names is not None else None
            read.append(DeviceNames(view, of if of is not None else self._view_names(duel_id, view, count)))
            return read[-1]
        back: list[int] = []

        def going_back(to: int) -> tuple[DuelState, list[Event]]:
            back.append(to)
            return self._going_back(duel_id, to, count)
        # a duel's first append names the record's ids (no view has named a card before it: the
        # cards are the ones it creates, as ``record --by`` writes them)
        events = _stamped(given, ENTERS_AS.get(role), entered_by, witnessed,
                          head_state if count else _no_head, view_names if count else None, going_back)
        # a correction judged on the entries up to ``count`` strikes those only: written at a head
        # another writer moved, it struck theirs unjudged too (a draw: its cards back in the Deck)
        if back and expected is not None and expected != count:
            raise ConflictError(say("duel {duel_id} has {count} events, not {expected}: a correction is "
                                    "judged on the entries it strikes, up to the head; nothing was "
                                    "appended",
                                    duel_id=duel_id, count=count, expected=expected))
        if (read or back) and expected is None:
            expected = count             # what its names meant there, not at a head another writer moved
        try:
            # a witness keeps receipts signed alone (its table holds no audit path): the one place
            # that decides whether a receipt is signed with its group commit (``receipts.issue``)
            # a duel's first events claim its opening: its match's game end judged it empty claims
            # it too, and one of the two only is written (``access.OPENING``); read only when taken
            return self.store.append_records(duel_id, events,
                                             expected_position=0 if count == 0 and expected is None else expected,
                                             receipted=self.witness is None,
                                             claims={duel_id: opening_claim()} if count == 0 else None,
                                             read_claims=False,
                                             shown_last=witnessed and view_of(role, "witnessed") != "judge")
        except ConflictError:
            if count == 0:
                self._not_closed(duel_id, given)
            raise
        except RuleViolation as exc:
            if not read and view_of(role, "witnessed" if witnessed else "machine") != TABLE:
                raise
            # said in the writer's view's names (the table's too, when the entry named none): the
            # record's reason names record ids, and may say what a card the view does not see is
            # ("p1.m0 was shown to be Luster Dragon", LOG-10)
            seen = read[0] if read else view_names(TABLE)
            at = exc.index - count
            hidden = (unseen(seen.view, events[at], self.store.head_state(duel_id))
                      if 0 <= at < len(events) and not exc.public else [])
            raise RuleViolation(exc.rule, seen.refused(exc.message, hidden), exc.index, exc.kind,
                                public=exc.public) from None

    def _not_closed(self, duel_id: str, given: list[Event]) -> None:
        """LOG-03: nothing is recorded in a duel whose match ended its game before it began (a game
        loss for lateness, a concession): the record of a game does not go on after its match
        said it ended (``match.commands._closing``; a duel begun gets its ``duel_ended`` there)."""
        closed = closed_by_match(self.store.attachment(duel_id, OPENING))
        if closed is not None:
            raise RuleViolation("LOG-03", say("duel {duel} is game {game} of match {match}, which ended that game "
                                              "before the duel began: nothing is recorded in it",
                                              duel=duel_id, game=closed[1], match=closed[0]), 0, given[0].kind)

    def _not_in_what_if(self, duel_id: str, table: bool = False) -> None:
        """A player enters nothing into a judge's what-if branch whose parent has not released what
        it hid (``library_search.released``): every view but the judge's stops where the branch left
        (``LiveDuel.branch_cut``), and an entry judged on the what-if's board would answer a player
        from events it may not read (its flags, a rule's refusal, a name its view does not know:
        ZONE-12, ZONE-13). Nor does a witnessed duel's recorder (``table``), whose view
        is the table's (``access.TABLE``), cut there too: it was answered the what-if's length (a
        409's head, its append's position) and wrote into the judge's line (the Axe of Despair the
        judge equipped sent to the GY). Every door (a token, raw ``/events``, ``append --by``)
        passes here."""
        parent = self.store.head_header(duel_id).parent      # the header the append's head holds: no read
        if parent and not released(self.store, parent):
            if table:
                raise Forbidden(say("the table's recorder enters nothing into a judge's what-if branch before the "
                                    "duel it left has released what it hid (its view stops where the branch left); "
                                    "nothing was written"))
            raise Forbidden(say("a player enters nothing into a judge's what-if branch before the duel it left "
                                "has released what it hid; nothing was written"))

    def _going_back(self, duel_id: str, to: int, count: int) -> tuple[DuelState, list[Event]]:
        """The board before event ``to`` and the events from it to the head of ``count`` events:
        what a correction back to ``to`` strikes (``views.out_of_sight``), read from ``to`` on only
        (a correction is of the current turn): the board and the record it follows in one read
        that checks them against the signed seals (``Store.seek``), then the events after that
        record's chain hash up to ``count`` only, as the signed anchors vouch for them. Each of
        them, or VerificationError: one the read leaves out (altered, rechained, deleted, or past
        the stored head) would be struck unjudged, a draw's cards put back in a Deck whose order
        the player has read."""
        back, last = self.store.seek(duel_id, to)
        struck, broken = (self.store.chained_after(duel_id, to, last.hash, upto=count) if last is not None
                          else ([], None))
        if len(struck) != count - to:
            raise VerificationError(say("duel {duel_id}: event {value} is not stored as its chain and signed "
                                        "anchors say (altered, rechained or deleted): a correction back to {to} is "
                                        "not judged on it; nothing was appended. Run 'ygoreplay verify'",
                                        duel_id=duel_id, value=to + len(struck) if broken is None else broken, to=to))
        return back, [r.event for r in struck]

    def _view_names(self, duel_id: str, view: str, count: int) -> dict[str, str]:
        """The view's name of each record id after the duel's first ``count`` events, derived from
        the stored record (a face that keeps no live view of it: the command line)."""
        stored = self.store.load(duel_id, verified=False)
        if len(stored.records) < count:
            raise ConflictError(say("duel {duel_id} has {n_records} events, not {count}: someone else "
                                    "appended",
                                    duel_id=duel_id, n_records=len(stored.records), count=count))
        redactor = redactor_of(view, stored.cards, stored.header.secret)
        for record in stored.records[:count]:
            redactor.feed(record.event)
        return redactor.names.of

    def flags(self, duel_id: str, start: int, stop: int) -> list[Violation]:
        """The flags of events ``start`` to ``stop`` (excluded), as the append that stored them
        found them: a witnessed duel's rules broken and kept (none for a machine's record)."""
        return [f for f in self.store.flags(duel_id, start) if f.index < stop] if start < stop else []

    @staticmethod
    def check_mode(duel_id: str, access: dict | None, events: list[Event]) -> None:
        """A duel created ``witnessed`` (``POST /duels {"mode"}``) is recorded so: its
        duel_started must say it, and a machine's may not, so no recorder changes what the
        organiser chose. ``access``: its access attachment as read with the head the events are
        judged on (``Store.witnessed``). Whichever event opens it: a ``position_set_up``, which says
        nothing of a table, made a duel created witnessed a machine's record (its players' devices
        refused, nothing stamped with who entered it)."""
        if access is None:
            return
        mode = Access.from_dict(access).mode
        if (mode == "witnessed") != _says_witnessed(events):
            must = "true" if mode == "witnessed" else "false (or absent)"
            raise InputError(say("duel {duel_id} was created as a {mode} record: its duel_started must say "
                                 "\"witnessed\": {must}; nothing was written",
                                 duel_id=duel_id, mode=mode, must=must))

    def rollback(self, duel_id: str, to: int, judge: str, reason: str, role: str = "organiser",
                 expected: int | None = None) -> int:
        """A judge backs the game up to before event ``to``: an event of its own (MATCH-08),
        written as the raw events endpoint writes one. The judge decided on the duel as it stood
        (``expected``: its length as the judge saw it; else as read now): if someone appended
        since, that is a conflict, never their entries reverted unseen."""
        length = self.store.info(duel_id).events if expected is None else expected
        event = from_dict({"kind": "rolled_back", "to": to, "judge": judge, "reason": reason}, "the rollback")
        return self.append(duel_id, [event], expected=length, role=role, entered_by="judge").events

    def note(self, duel_id: str, judge: str, text: str, category: str = "note", role: str = "organiser",
             on: int | None = None, decision: str | None = None, expected: int | None = None) -> int:
        """A judge's call, ruling, penalty or note (MATCH-08), written as the raw endpoint writes one;
        a ruling ``on`` an entry (a flagged or disputed one) says what was decided. ``expected``: the
        duel's length it is written at, as the raw endpoint's (a retry of one stored is a conflict,
        not a second note)."""
        event = from_dict({"kind": "judge_note", "judge": judge, "note": text, "category": category,
                           "on": on, "decision": decision}, "the note")
        return self.append(duel_id, [event], expected=expected, role=role, entered_by="judge").events

    def branch(self, duel_id: str, at: int, title: str = "", key: str | None = None) -> str:
        """A what-if line: a new duel of events #0..#at of this one (the board after event #at).
        It inherits its parent's access (tokens, visibility and spectator delay), written with it
        in one transaction: its first events are the parent's, and a branch must not show more of
        them than its parent does (nor stand, had the second of two writes failed, where no token
        of the duel opens it). ``key``: the request's idempotency key (a judge's client makes one
        per branch asked for and sends it again with a retry: HTTP ``Idempotency-Key``, the command
        line's ``--key``): the same request sent again, its answer lost, is answered with the
        branch it made, never a second one; two at once write one (the key is the branch's claim,
        ``store.key_claim``). A key that made a branch at another event, or of another title, is
        refused: it names another request."""
        length = self.store.info(duel_id).events
        if not 0 <= at < length:
            raise InputError(say("duel {duel_id} has events #0..#{value}: branch after one of them, not #{at}",
                                 duel_id=duel_id, value=length - 1, at=at))
        title = checked(title, "the title", 500) or f"branch of {duel_id} after event #{at}"
        claim = None if key is None else f"branch-{duel_id}-{_request_key(key)}"
        made = self._branched(claim, duel_id, at, title) if claim is not None else None
        if made is not None:
            return made
        access = self.store.attachment(duel_id, "access")
        attachments = None if access is None else {"access": access}
        child = new_id()
        try:
            self.store.branch(duel_id, at + 1, title, attachments, stream_id=child,
                              claims=None if claim is None else key_claim(claim, child))
        except ConflictError:
            made = self._branched(claim, duel_id, at, title) if claim is not None else None
            if made is not None:                   # the same request, written by another writer meanwhile
                return made
            if claim is None:
                raise
            # a claim no branch of this duel answers for (rewritten in the database) is no one's
            child = self.store.branch(duel_id, at + 1, title, attachments)
        # the parent's access read again once the branch stands: narrowed meanwhile (its change
        # listed its branches before this one was written), the branch is narrowed with it
        self._branches_within(duel_id, self.access(duel_id), only=child)
        self._receipt(child, at + 1)
        return child

    def _branched(self, claim: str, duel_id: str, at: int, title: str) -> str | None:
        """The branch a request's key made (``branch``), if the store vouches for one: a branch of
        ``duel_id`` its signed header names; ConflictError when it is of another event or title."""
        held = self.store.attachment(STORE_ID, f"claim/{claim}")
        child = str(held.get("stream")) if held is not None else None
        try:
            info = self.store.info(child) if child is not None else None
        except StoreError:
            return None
        if info is None or not info.signed or info.parent != duel_id or info.branch_at is None:
            return None
        if (info.branch_at - 1, info.title) != (at, title):
            raise ConflictError(say("this request's key made branch {child} of duel {duel} after event #{made} "
                                    "({title!r}) already: a key names one request; send a new key for another "
                                    "branch. Nothing was written", child=child, duel=duel_id,
                                    made=info.branch_at - 1, title=info.title))
        return child

    def access(self, duel_id: str) -> Access:
        """Who may see and do what in a duel (private when it has no access record)."""
        return Access.from_dict(self.store.attachment(duel_id, "access") or {"visibility": "private"})

    def access_or_none(self, duel_id: str) -> Access | None:
        """``access``, or None when its record cannot be read (rewritten in the database): a list
        of many duels goes on without that one, which nobody may open."""
        try:
            return self.access(duel_id)
        except StoreError:
            return None

    def state(self, duel_id: str, at: int | None = None) -> DuelState:
        """The board after event ``#at`` of a stored duel (the last when None)."""
        length = self.store.info(duel_id).events
        if at is not None and not 0 <= at < length:
            raise InputError(say("duel {duel_id} has events #0..#{value}, not #{at}",
                                 duel_id=duel_id, value=length - 1, at=at))
        return self.store.state_at(duel_id, None if at is None else at + 1)

    def export(self, duel_id: str, view: str = "judge") -> ReplayFile:
        """A replay file of a stored duel for one view, derived from the verified record: a
        record that fails verification is refused, and a judge file carries the stored chain.
        A what-if branch's view but the judge's stops where the branch left while its parent has
        not released what it hid (``source.stored_cut``), as the service's file of that view does."""
        if view not in VIEWS:
            raise InputError(say("unknown view {view!r} (views: {names_list})",
                                 view=view, names_list=', '.join(VIEWS)))
        duel = self.store.load(duel_id, verified=True)
        match: dict[str, Any] = {"duel": duel_id, "title": duel.header.title}
        if duel.header.parent:
            match.update(parent=duel.header.parent, branch_at=duel.header.branch_at)
        cut = None if view == "judge" else stored_cut(self.store, duel_id, view)
        count = len(duel.events) if cut is None else min(len(duel.events), cut)
        return make_replay(duel.events[:count], duel.times[:count], duel.cards, view, duel.header.root,
                           duel.header.secret, match, duel.header.source, duel.header.created,
                           chain=duel.hashes[:count])

    def import_replay(self, replay: ReplayFile, title: str | None, trust: Iterable[PublicKey],
                      unsigned: bool = False, attachments: dict[str, dict] | None = None) -> Recorded:
        """Record a judge file as a new duel, after checking it: its chain must hold and (unless
        ``unsigned``) its signature must be a trusted key's. Its root, secret, times and card facts
        are kept, so the views handed out earlier still verify against a re-export. A match file
        is refused (it is not a duel), and a file imported before is not stored twice: its duel
        is answered as ``skipped``, however many import it at once (the file's head is the
        duel's claim, ``store.key_claim``: one of them writes it). ``attachments`` are written with
        the duel, in its transaction (an upload's access record)."""
        if replay.games or replay.match.get("kind") == "match":
            raise InputError(say("this is a match file, not a duel: import it with `ygoreplay match ...` (POST "
                                 "/matches for the service); nothing was imported"))
        if replay.view != "judge":
            raise InputError(say("a {view} view lacks hidden information and cannot be recorded; import the judge "
                                 "file", view=replay.view))
        bad = verify_chain(replay)
        if bad is not None:
            where = "its header's head hash" if bad == -1 else f"event {bad}"
            raise VerificationError(say("the file's hash chain is broken at {where}: it was altered; nothing was "
                                        "imported", where=where))
        signature = signature_of(replay, trust)
        if not signature.ok and not (unsigned and (replay.signer is None or replay.signature_valid)):
            raise VerificationError(
                say("the file is {signature}; nothing was imported", signature=signature.describe())
                if signature.valid is False else
                say("the file is {signature}; nothing was imported (--unsigned imports it as an unverified record)",
                    signature=signature.describe()))
        unverified = not signature.ok or bool(replay.source.get("unverified"))    # or exported from such a record
        earlier = self.imports().get(replay.head, unverified)
        if earlier is not None:
            return Recorded(earlier.id, len(replay.events), earlier.events, skipped=True)
        provenance = {"imported": chain.now(), "file_head": replay.head,
                      "signed_by": replay.signer.text if replay.signer else None, "trusted": signature.ok,
                      "match": replay.match}
        title = checked(title or str(replay.match.get("title") or ""), "the title", 500)
        source = dict(replay.source)
        if not signature.ok:                  # said in the signed header, so every export says it too
            source["unverified"] = True
        try:                                  # what its exports' header will hold: the file's, and more
            for event in replay.events[:1]:   # its names first, each named as the store's check names it
                check_event(event, 0, names=HEADER_LIST)
            check_header(ruleset_and_players(replay.events)[1], source, replay.created)
        except ReplayFileError as exc:
            raise InputError(say("the duel's header (its players, source and created) would be past what a replay "
                                 "file's header holds ({exc}): it could never be exported; nothing was imported",
                                 exc=exc)) from None
        earlier, (duel_id, stored) = self._claimed(
            f"ygr-{replay.head.hex()}" + ("-unverified" if unverified else ""),
            lambda: self.imports().get(replay.head, unverified), replay.events, title, times=replay.times,
            cards=replay.cards, check=False, root=replay.root, secret=replay.commit_key or None,
            created=replay.created or None, source=source, provenance=provenance, attachments=attachments)
        if earlier is not None:                           # another writer imported it meanwhile
            return Recorded(earlier.id, len(replay.events), earlier.events, skipped=True)
        return Recorded(duel_id, len(replay.events), stored, violations=audit(replay.events, replay.cards).violations,
                        receipt=self._receipt(duel_id, stored))

    def _claimed(self, claim: str, earlier: Callable[[], DuelInfo | None], events: list[Event], title: str,
                 **record: Any) -> tuple[DuelInfo | None, tuple[str, int]]:
        """An imported file's duel recorded with the file's claim (``store.key_claim``): (None, (id,
        events stored)); or (the duel another writer imported it as, ...) when the claim is held
        by a duel the store vouches for (``earlier``). A claim no such duel answers for (its
        header altered in the database, or a row written there) is no one's: the file is recorded
        without it, as it was before claims (refused, it was refused forever)."""
        record["attachments"] = _moded(events, record.get("attachments"))
        try:
            stream_id = new_id()
            duel_id, stored, _ = self.store.record(events, title, stream_id=stream_id,
                                                   claims=key_claim(claim, stream_id), **record)
        except ConflictError:
            found = earlier()
            if found is not None:
                return found, ("", 0)
            duel_id, stored, _ = self.store.record(events, title, **record)
        assert duel_id is not None
        return None, (duel_id, stored)

    def imports(self) -> Imports:
        """The stored duels imported from a file, by what names the file (``Imports``), read in
        one scan of the store's duels: an import of many files reads it once, not once a file."""
        return Imports(self.store.duels())

    def import_yrpx(self, path: Path, names: CardDB | None, title: str | None,
                    known: Imports | None = None,
                    attachments: dict[str, dict] | None = None) -> tuple[Recorded, Any]:
        """Record an EDOPro replay as imported (every event kept; the audit lists what our rules
        say), unless a duel from the same file is already in the store (``known``: ``imports()``,
        kept up to date here; else read now),
        or another writer records it meanwhile (the file's digest is the duel's claim);
        ``attachments`` as ``import_replay``'s."""
        from .yrpx import fold_and_compare
        title = checked(title, "the title", 500) if title else None
        result, data = _edopro(path, names)
        digest = hashlib.sha256(data).hexdigest()                   # of the bytes imported, never a second read
        known = self.imports() if known is None else known
        info = known.get(digest)
        if info is not None:
            return Recorded(info.id, len(result.events), info.events, skipped=True), None
        agreement = fold_and_compare(result)
        source = {"format": EDOPRO.name, "file": path.name, "size": len(data), "sha256": digest}
        cards = _scripted(result.cards, names if names is not None else self.store.cards)
        earlier, (duel_id, stored) = self._claimed(
            f"yrpx-{digest}", lambda: self.imports().get(digest), result.events, title or path.name,
            times=result.times, cards=cards, check=False, source=source, attachments=attachments)
        if earlier is not None:                           # another writer imported it meanwhile
            known.add(digest, earlier)
            return Recorded(earlier.id, len(result.events), earlier.events, skipped=True), None
        info = DuelInfo(duel_id, title or path.name, "", None, None, stored, {}, source)
        known.add(digest, info)
        return Recorded(duel_id, len(result.events), stored, violations=agreement.violations,
                        receipt=self._receipt(duel_id, stored)), agreement

    def verify(self, duel_id: str, receipts: Iterable[Receipt] = (), verified: Verification | None = None,
               held_back: bool = False) -> tuple[Verification, Receipt | None]:
        """The duel verified end to end (``verified``: already, by a live duel's cache), then
        against the receipts given and the witness's last head (also returned): a store behind
        any of them is NOT ok. A view ``held_back`` (``LiveDuel.holds_back``: a player of a
        judge's what-if, a delayed spectator) is not judged by the witness: its head is the whole
        record's, and a cut behind it or its signature failing would be said with its event count
        (the what-if's length, the table's progress past the delay)."""
        return verify_heads(self.store, duel_id, receipts, None if held_back else self.witness, verified)

    def seals(self, duel_id: str) -> "SealReport | None":
        """What the duel's seals hold, when its players sealed their own sides (``trust.seals_of``):
        sealed, opened, unopened, and each opening that does not open its seal (LOG-11)."""
        stored = self.store.load(duel_id, verified=False)
        return seals_of(stored.events, stored.cards)

    def receipt(self, duel_id: str) -> Receipt:
        """A signed receipt of the duel's head as the store holds it now, for a reader of the
        whole record to keep (a judge's viewer): not given to the witness, as nothing was written."""
        self._not_behind(duel_id, N_("no receipt is signed for it"))
        return issue(self.store, duel_id, self.store.info(duel_id).events, None, None)

    def behind_witness(self, duel_id: str) -> str:
        """Why the stored duel is behind the head its witness kept ("" when it is not, or there
        is no witness): read from its head only, as ``duels`` lists it."""
        return behind_witness(self.store, duel_id, self.witness)

    def duels(self, player: str | None = None, since: str | None = None, until: str | None = None) -> list[DuelInfo]:
        """The stored duels, oldest first, from their headers and signed anchors only (no event
        is decoded): those with a player whose name holds ``player`` (any case), created on or
        after the day ``since`` and on or before the day ``until`` (``YYYY-MM-DD``, or a prefix of
        one: ``2026-01`` is January)."""
        duels = self.store.duels()
        if player:
            wanted = player.casefold()
            duels = [d for d in duels if any(wanted in str(p).casefold() for p in d.status.get("players", []))]
        if since:
            duels = [d for d in duels if d.created[:len(since)] >= since]
        if until:
            duels = [d for d in duels if d.created[:len(until)] <= until]
        return duels


def _edopro(path: Path, names: CardDB | None) -> tuple[ImportResult, bytes]:
    """An EDOPro replay imported (``check``: its board compared with the engine's) from the bytes
    of ``path`` read once, bounded, a regular file only (``yrpx.read_file``), with those bytes:
    what is kept of the file (its size, its digest, the duel's claim) is of what was imported; a
    second read gave a file swapped in meanwhile the other's digest, refused as imported forever."""
    from .yrpx import import_yrpx, read_file
    data = read_file(path)
    return import_yrpx(data, names=names, check=True, name=str(path)), data


def _scripted(cards: CardDB, lookup: object) -> CardDB:
    """An imported duel's card facts with the effect facts ``lookup`` (the card databases) has of
    those that carry none: the importer reads a replay, not the cards' scripts, and the duel is
    stored and exported with what they said when it was imported."""
    reader = getattr(lookup, "effects", None)
    if reader is None:
        return cards
    return cards.with_effects({code: found for code in cards if not cards.effects(code) and (found := reader(code))})


def _digest_of(events: list[Event], *settings: object) -> str:
    """What names one recording of a file (``Records.record``'s ``repeat``): its events as JSON Lines
    and the settings it was recorded under."""
    made = hashlib.sha256(jsonl_dumps(events).encode())
    made.update(repr(settings).encode())
    return made.hexdigest()


def _says_witnessed(events: list[Event]) -> bool:
    return bool(events) and isinstance(events[0], DuelStarted) and events[0].witnessed


#: A request's idempotency key (``Records.branch``): what a page's ``crypto.randomUUID()`` gives, and
#: what a claim's row id may hold (``store.key_claim``).
_REQUEST_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _request_key(key: str) -> str:
    """``key`` as a request's idempotency key, or InputError saying what one is."""
    if not isinstance(key, str) or not _REQUEST_KEY.fullmatch(key):
        raise InputError(say("a request's key is 1 to 64 letters, digits, '-' or '_', not {key!r}; nothing "
                             "was written", key=str(key)[:70]))
    return key


def _moded(events: list[Event], attachments: dict[str, dict] | None) -> dict[str, dict] | None:
    """The attachments a new duel with events is written with, its access record in the mode its
    first events say (``access.MODES``): the one place a new duel's mode is decided whatever the
    door (``record``, ``import``, an upload, the service's ``POST /duels``). A duel that begins
    witnessed is a witnessed record, its players' devices recording their own sides once served,
    as the same file recorded or imported by the command line is; a duel created empty keeps the
    mode its organiser chose, which its first events must then say (``Records.check_mode``)."""
    if not events or attachments is None or "access" not in attachments:
        return attachments
    mode = "witnessed" if _says_witnessed(events) else "machine"
    access = replace(Access.from_dict(attachments["access"]), mode=mode)
    return {**attachments, "access": access.to_dict()}


def _witnessed(events: list[Event]) -> list[Event]:
    """The events of a duel recorded as witnessed (``record --witnessed``): its duel_started says so."""
    if not events or not isinstance(events[0], DuelStarted):
        raise InputError(say("a witnessed record begins with its duel_started (which says it is witnessed); nothing "
                             "was recorded"))
    return [replace(events[0], witnessed=True), *events[1:]]


_UNREAD = object()          # whose turn it is, not yet read (``_stamped``)


def _as_player(role: str, entered_by: str | None) -> bool:
    """Whether an append is entered as a player (``_stamped``): in its view's card names."""
    own = ENTERS_AS.get(role)
    return own in PLAYERS or (own is None and entered_by in PLAYERS)


def names_view(role: str, entered_by: str | None, witnessed: bool) -> str | None:
    """The view whose card names an append is written in (``_stamped`` turns them into record
    ids), or None for record ids: a player's, entered as that player (its token, ``--by p0``); the
    table's (``access.TABLE``), written with a witnessed duel's recorder token, which reads the
    duel through it (``access.view_of``): its board, frames and ``/actions`` name a card the table
    saw anew once it is mixed into a hidden pile, and an entry in the record's ids would tell it
    which card a player's device Set. The judge, a machine's recorder and the store's owner
    (``--by recorder``: the command line reads the judge's view) write record ids."""
    if _as_player(role, entered_by):
        return role if role in PLAYERS else entered_by
    return TABLE if witnessed and ENTERS_AS.get(role) == "recorder" else None


def _may_name(event: Event) -> bool:
    """Whether an entry may name a card outside its id fields and ``shows``: a cited card, a
    cause, free text, seals, openings (``views.DeviceNames`` reads them all)."""
    return bool(event.cite or getattr(event, "cause", None) or event.kind in ("cards_sealed", "cards_opened")
                or any(isinstance(text := getattr(event, name, None), str) and "." in text
                       for name in ("description", "note", "reason", "judge", "effect")))


def _no_head() -> None:
    """The head of a duel with no event yet: none (nobody's turn, no card)."""
    return None


def repeated_turn(head_state: Callable[[], DuelState], count: int, made_on: int, events: list[Event]) -> None:
    """Two recorder devices at one table both tap *Next turn*: each entry is legal alone, and
    the rules would store two turns. What a judge wants is the record of what was played, so a
    turn change is refused (``Unconfirmed``, nothing written) when it cannot be what the table did:

    * ``turn_repeated``: made on a stale head: another entry started a turn after the head its
      device saw (``made_on``: a page's queued entry moved after another device's keeps the head
      it was entered at) — the same *Next turn* seen late;
    * ``turn_empty``: it ends a turn in which nothing at all was entered, not even the turn's
      Draw Phase or draw — the second tap of a device that saw the first's.

    A device that really means it (a turn skipped by a card's effect, a missed entry to add
    later) sends it again confirmed; every face passes that (``?confirm=true``, ``append
    --confirm``). Judged on the entry's own events and, only where they leave it open (an entry
    made before the head, or one that begins with the turn change), on ``head_state()``, the board
    of the ``count`` events stored: an append reads no more than it needs (its hot path)."""
    head = head_state() if made_on < count or events[0].kind == "turn_started" else None
    if head is not None and head.turn > 0 and made_on <= head.turn_began < count:
        started = next(e for e in events if e.kind == "turn_started")
        raise Unconfirmed("turn_repeated", say(
            "turn {turn} was started by another entry (event {index}) after this one was entered at event "
            "{made_on}: it looks like the same next turn entered twice. Nothing was written; confirm it to "
            "start turn {next} as well", turn=head.turn, index=head.turn_began, made_on=made_on, next=started.turn))
    turn, empty = (head.turn, head.turn > 0 and head.turn_began == count - 1) if head is not None else (0, False)
    for ev in events:
        if ev.kind == "turn_started" and empty:
            raise Unconfirmed("turn_empty", say(
                "nothing was entered in turn {turn}, not even its draw: it looks like the same next turn entered "
                "twice. Nothing was written; confirm it to end turn {turn} and start turn {next}",
                turn=turn, next=ev.turn))
        empty = ev.kind == "turn_started"
        turn = ev.turn if empty else turn


def _a_call(event: Event) -> bool:
    """A judge call (``access.CALL``): a judge's note of that category, ruling on no entry."""
    return isinstance(event, JudgeNote) and event.category == CALL and event.on is None and event.decision is None


def _stamped(events: list[Event], own: str | None, entered_by: str | None, witnessed: bool,
             head: Callable[[], DuelState | None] = _no_head,
             names: Callable[[str], DeviceNames] | None = None,
             before: Callable[[int], tuple[DuelState, list[Event]]] | None = None) -> list[Event]:
    """Each event with who entered it (a witnessed duel's): a token's role (``own``) may enter
    only as itself; the store's owner enters as ``entered_by`` where an event names no one. An
    entry a player enters (their token, or ``--by p0``) is their own side's (``access.off_side``;
    whose turn it is before the first event is the ``head()``'s, None before the first turn) and
    names no card of the other player's that the player does not see at the head but as its
    target, nor reveals one (``views.out_of_sight``: the full record's fold would tell the player
    what it is; the recorder or the card's player, who see it, enter what shows it);
    ``head()`` is read once, only when a player's entry needs whose turn it is or names a card.
    An append entered as a player (``own``, a token's; else ``entered_by``, ``--by p0``) is written
    by that player's device in its own view's card names, and a witnessed duel's recorder's in the
    table's (``names_view``): given ``names`` (the view's names at the head, ``views.DeviceNames``),
    each is turned into the record id it names before anything is judged (a name the view does not
    know is refused), and a reason given names cards as the view does. ``before(n)``: the board before event ``n`` and the events from it on (what a player's
    correction goes back to, and strikes).
    The one place every door decides what a player's device may record, and turns a view's names
    into record ids."""
    if entered_by is not None and entered_by not in ENTERED_BY:
        raise InputError(say("who entered it is one of {roles}, not {entered_by!r}", roles=", ".join(ENTERED_BY),
                             entered_by=entered_by))
    stamp = own or entered_by or "recorder"
    device = names_view(own or "organiser", entered_by, witnessed) if names is not None else None
    seen: DeviceNames | None = None               # the device's view's names, once read
    out = []
    turn: Any = _UNREAD
    read: list = []                 # the head, once read

    def state() -> DuelState | None:
        if not read:
            read.append(head())
        return read[0]
    for index, event in enumerate(events):
        if own is not None and event.entered_by not in (None, own):
            raise Forbidden(say("event {index} ({kind}) says entered_by {entered_by!r}, but it is written with the "
                                "{role}'s token: an entry is its writer's; nothing was written", index=index,
                                kind=event.kind, entered_by=event.entered_by, role=own))
        if device in PLAYERS and event.entered_by not in (None, device):
            raise Forbidden(say("event {index} ({kind}) says entered_by {entered_by!r}, but it is entered as "
                                "{role}: an entry is its writer's; nothing was written", index=index,
                                kind=event.kind, entered_by=event.entered_by, role=device))
        if device is not None and (event.shows or cards_named(event) or _may_name(event)):
            if seen is None:
                seen = names(device)
            now = state()
            event = seen.record(event, index, now.cards if now is not None else ())
        judges = WRITERS.get(event.kind) == ("judge",)      # the store's owner writes a judge's kind as the judge
        by = own or event.entered_by or (None if judges or not witnessed else stamp)
        if event.kind == "turn_started":
            turn = event.player
        elif event.kind == "position_set_up":
            turn = getattr(event, "turn_player", turn)
        if by in PLAYERS and turn is _UNREAD:
            now = state()
            turn = now.turn_player if now is not None and now.turn else None
        why = off_side(by, event.kind, event.player, turn, witnessed) if by else None
        if not why and by in PLAYERS and witnessed and (event.shows or cards_named(event)
                                                        or event.kind in CARDS_ELSEWHERE):
            why = out_of_sight(by, event, state(), seen.said if seen is not None and by == device else None, out,
                               before)
            if why and seen is None and by == device:   # a damage calculation's reason names its target so
                seen = names(device)
                why = out_of_sight(by, event, state(), seen.said, out, before)
        if why:
            raise Forbidden(say("event {index} ({kind}) is entered as {role}, but {why}; nothing was written",
                                index=index, kind=event.kind, role=by, why=why))
        if witnessed and event.entered_by is None:
            event = replace(event, entered_by=own or ("judge" if judges else stamp))
        out.append(event)
    return out


@dataclass
class Imported:
    """One EDOPro replay imported (into the store or to a file): how its fold agrees with the
    replay's own result and with the engine's state packets at every step (``engine``: the
    figures of ``engine_check.EngineAgreement.to_dict``, with the first divergence), what our
    rules say of it, or why it could not be imported."""

    file: str
    id: str | None = None
    events_read: int = 0
    events_stored: int = 0
    lp: bool = False
    winner: bool = False
    violations: list[Violation] = field(default_factory=list)
    skipped: bool = False                     # the same file is already in the store
    error: str | None = None
    engine: dict | None = None                # None when skipped or not imported
    pending: tuple[str, Path] | None = None   # written, not yet committed (``files.write_pending``)
    overrides: int = 0                        # rules set aside by a cite (GEN-01)
    unexplained: int = 0                      # of them, cited for review (``Cite.unexplained``)

    def to_dict(self) -> dict:
        return {"file": self.file, "id": self.id, "events_read": self.events_read, "events_stored": self.events_stored,
                "events": self.events_read, "lp": self.lp, "winner": self.winner,
                "violations": [violation_dict(v) for v in self.violations], "skipped": self.skipped,
                "error": self.error, "engine": self.engine, "overrides": self.overrides,
                "unexplained": self.unexplained}


def import_replay_file(path: Path, names: CardDB | None, title: str | None, *, records: Records | None = None,
                       known: Imports | None = None, target: Path | None = None,
                       key: OrganiserKey | None = None, batch: bool = False) -> Imported:
    """Import one EDOPro replay into the store (``records``), or write it as a signed judge file
    (``target``, with ``key``; one of a ``batch`` is left ``pending``: ``files.commit``). A replay
    that cannot be imported is reported, not raised."""
    from .replay_file import write, write_pending
    from .yrpx import fold_and_compare
    outcome = Imported(path.name)
    try:
        if records is not None:
            done, agreement = records.import_yrpx(path, names, title, known)
            outcome.id, outcome.events_read, outcome.events_stored = done.id, done.events, done.stored
            if done.skipped:
                outcome.skipped = outcome.lp = outcome.winner = True
                return outcome
        else:
            assert target is not None and key is not None
            result, data = _edopro(path, names)
            agreement = fold_and_compare(result)
            target.parent.mkdir(parents=True, exist_ok=True)
            replay = make_replay(result.events, result.times, _scripted(result.cards, names), "judge",
                                 secrets.token_bytes(32), secrets.token_bytes(32),
                                 {"title": checked(title or path.name, "the title", 500),
                                  "players": list(result.players)},
                                 {"format": EDOPRO.name, "file": path.name, "size": len(data)})
            if batch:
                outcome.pending = write_pending(target, replay, key)
            else:
                write(target, replay, key)
            outcome.events_read = outcome.events_stored = len(result.events)
    except InputError as exc:
        detail = getattr(exc, "detail", None) or str(exc)
        outcome.error = detail.removeprefix("cannot import: ")
        return outcome
    except OSError as exc:
        outcome.error = f"cannot write ({exc.strerror or exc})"
        return outcome
    outcome.lp, outcome.winner, outcome.violations = agreement.lp, agreement.winner, list(agreement.violations)
    outcome.engine = agreement.engine.to_dict()
    overrides = agreement.state.overrides
    outcome.overrides, outcome.unexplained = len(overrides), sum(o.cite.unexplained for o in overrides)
    return outcome


def import_replay_files(files: list[Path], targets: list[Path], names: CardDB | None, title: str | None, *,
                        key: OrganiserKey, cards: tuple[str, ...] | None = None, jobs: int = 1) -> Iterator[Imported]:
    """``import_replay_file`` for each file, written to its target, the outcomes in file order.

    ``names`` is ``card_lookup(cards)``, or None with ``cards`` None (no card database). With
    ``jobs`` > 1 the files are imported by that many worker processes (``fork`` where the system
    has it), each opening the databases of ``cards`` anew (a database connection is never shared
    across processes) and signing with the same key; the outcomes still come in file order, each
    as it is ready. Workers ignore Ctrl-C: on an interrupt the caller's ``KeyboardInterrupt``
    stops the iteration, the files not started are cancelled and those being written are
    finished (every file is written whole or not at all, ``write_atomic``). Close the iterator
    (``contextlib.closing``) to wait for them. Files are written under temporary names and
    committed ``COMMIT_EVERY`` at a time (``files.commit``: one sync for them all, then their
    renames), and when the iteration ends or stops: an outcome may come before its file is
    renamed, never after the command is over; a crash (power lost, the process killed) may leave
    out the last files reported, never half of one. One that cannot be renamed is an InputError."""
    pending: list[Imported] = []
    try:
        for outcome in _import_batch(files, targets, names, title, key, cards, jobs):
            if outcome.pending is not None:
                pending.append(outcome)
            yield outcome
            if len(pending) == COMMIT_EVERY:
                _commit(pending)
                pending = []
        _commit(pending)
    finally:
        _commit(pending, quiet=True)


#: How many imported files are committed at once: two fsyncs a file were most of writing them.
COMMIT_EVERY = 16


def _commit(outcomes: list[Imported], quiet: bool = False) -> None:
    """Commit the files these outcomes left pending (``files.commit``). One that cannot be renamed
    raises InputError naming it, unless ``quiet`` (the import is being interrupted)."""
    from .files import commit
    failed = commit([o.pending for o in outcomes if o.pending is not None])
    for outcome in outcomes:
        outcome.pending = None
    if failed and not quiet:
        raise InputError("; ".join(f"{target}: {why}; nothing was written" for target, why in failed.items()))


def _import_batch(files: list[Path], targets: list[Path], names: CardDB | None, title: str | None,
                  key: OrganiserKey, cards: tuple[str, ...] | None, jobs: int) -> Iterator[Imported]:
    with _few_collections():
        if jobs <= 1 or len(files) < 2:
            for path, target in zip(files, targets):
                yield import_replay_file(path, names, title, target=target, key=key, batch=True)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
        pool = ProcessPoolExecutor(min(jobs, len(files)), mp_context=context, initializer=_import_worker,
                                   initargs=(cards, key.to_pem()))
        futures = [pool.submit(_import_in_worker, path, title, target) for path, target in zip(files, targets)]
        given = 0
        try:
            for future in futures:
                outcome = future.result()
                given += 1
                yield outcome
        finally:
            for future in futures:
                future.cancel()
            pool.shutdown(wait=True)
            # Stopped early: the files the workers finished but nobody was given are committed too.
            _commit([f.result() for f in futures[given:] if not f.cancelled() and f.exception() is None])


@contextmanager
def _few_collections() -> Iterator[None]:
    """An import allocates millions of small objects that reference counting frees as it goes;
    at the default thresholds the cyclic collector still runs thousands of times a folder, and
    each full pass walks the long-lived modules and card databases too (about a tenth of an
    import). For a batch, what exists before it is frozen out of the collector's reach (which
    also keeps forked workers from copying those pages) and it runs every 50,000 allocations:
    cycles are still collected."""
    old = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


_worker: dict[str, Any] = {}          # a worker process's card databases and key (``_import_worker``)


def _import_worker(cards: tuple[str, ...] | None, key_pem: bytes) -> None:
    import signal
    from .card_sources import card_lookup
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent process handles Ctrl-C
    _worker.update(names=card_lookup(cards) if cards is not None else None, key=OrganiserKey.from_pem(key_pem))


def cpus() -> int:
    """The CPUs this process may run on: the default number of import workers."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                       # not on Linux
        return os.cpu_count() or 1


def _import_in_worker(path: Path, title: str | None, target: Path) -> Imported:
    return import_replay_file(path, _worker["names"], title, target=target, key=_worker["key"], batch=True)


def record_file(events: list[Event], cards: CardDB, view: str, title: str) -> ReplayFile:
    """A replay file of events that no store holds (a JSON Lines file): a record of its own,
    with a new random root and secret."""
    return make_replay(events, [chain.now()] * len(events), cards, view, secrets.token_bytes(32),
                       secrets.token_bytes(32), {"title": checked(title, "the title", 500)})


def offline_page(replay: ReplayFile, key: OrganiserKey, file_name: str) -> str:
    """A self-contained web page of one view (``export --html``): the viewer, the frames of the
    view's events, and the signed replay file they were drawn from, to download and verify."""
    from . import viewer
    from .live import LiveView
    from .replay_file import dumps
    signed = dumps(replay, key)
    frames = [step.frame() for step in LiveView.of_file(replay).steps]
    info = {"id": replay.match.get("duel", ""), "title": replay.match.get("title", ""), "view": replay.view,
            "views": [replay.view], "role": None, "events": len(frames), "ended": True, "delay": None,
            "signer": key.public.text, "origin": origin_of(replay.source)}
    return viewer.offline_page(info, frames, signed, file_name)


# -- reads: what a caller may know ---------------------------------------------------------------------

#: What a spectator may see of a duel now (its number of events), as the service follows it.
Visible = Callable[[str], int]


def as_seen(info: DuelInfo, access: Access, visible: Visible) -> DuelInfo | None:
    """A duel as a spectator may know of it: cut at what its delay released (nothing past it:
    no length, no result), and None before it released any event. A branch is as its parent
    shows it (``visible`` says so), whatever its own delay. None for one whose header its
    signed anchors do not name (``DuelInfo.signed``): its page shows nothing of it, nor does a
    list its forged title."""
    if not info.signed:
        return None
    if not (access.delayed or info.parent):
        return info
    shown = min(info.events, visible(info.id))
    if shown == 0:
        return None
    if shown == info.events:
        return info
    return replace(info, events=shown, status={"players": info.status.get("players", [])})


def public_duels(records: Records, visible: Visible, player: str | None = None) -> list[dict]:
    """The public duels as anyone may know of them (``as_seen``), oldest first."""
    out = []
    for info in records.duels(player):
        access = records.access_or_none(info.id)
        seen = as_seen(info, access, visible) if access is not None and access.visibility == "public" else None
        if seen is not None:
            out.append(duel_dict(seen))
    return out


def family(records: Records, duel_id: str, may_open: Callable[[str, Access], bool],
           visible: Visible | None = None) -> list[dict]:
    """The duel's family of branches, depth first, as a caller may know of it: those it may open
    (``may_open(id, access)``); for a spectator or a player (``visible``) those it may see an event of
    (``as_seen``, the list says the same: a judge's what-if counted where its view stops), and always the duel
    asked about, with what it may see of each."""
    out = []
    for depth, info in records.store.tree(duel_id):
        access = records.access_or_none(info.id)
        if access is None or not may_open(info.id, access):
            continue
        seen: DuelInfo | None = info
        if visible is not None:
            seen = as_seen(info, access, visible)
            if seen is None and info.id == duel_id:
                seen = replace(info, events=0)
        if seen is not None:
            # "signed": false says the title is none its anchors sign (altered in the database)
            out.append({"depth": depth, "id": seen.id, "title": seen.title, "parent": seen.parent,
                        "branch_after": branch_after(seen), "events": seen.events, "signed": seen.signed})
    return out


def branch_after(info: DuelInfo) -> int | None:
    """The last event of its parent a branch keeps (the store counts the events it keeps)."""
    return info.branch_at - 1 if info.parent and info.branch_at else None


def duel_dict(info: DuelInfo) -> dict:
    status = info.status
    ended = bool(status.get("ended"))
    return {"id": info.id, "title": info.title, "created": info.created, "players": status.get("players", []),
            "events": info.events, "status": "ended" if ended else "in progress" if info.signed else "unverified",
            "result": {"winner": status.get("winner"), "reason": status.get("reason")} if ended else None,
            "parent": info.parent, "branch_after": branch_after(info), "signed": info.signed,
            "origin_verified": info.source.get("unverified") is not True}
