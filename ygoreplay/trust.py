"""Who vouches for a record: a ``.ygr`` file's chain end to end, its signature against the keys
trusted here, the proof that a view was derived from a judge file, where a record came from, and
that every seal a player's device wrote and opened later opens to what was sealed (``seals_of``).

Below the application (``application.py`` re-checks, exports and imports with it) so that any
layer that reads a file, matches' files among them, verifies it the one way.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from .cards import CardDB
from .errors import VerificationError
from .events import Event
from .i18n import t
from .exchange import verify_against
from .openings import SealReport, has_seals, seal_report
from .replay_file import ReplayFile, verify_chain
from .signing import PublicKey


@dataclass
class Signature:
    """Who signed a file or a stored duel, and whether that key is trusted here."""

    signer: PublicKey | None
    valid: bool | None
    trusted: bool

    def to_dict(self) -> dict:
        return {"signed": self.signer is not None, "valid": self.valid, "trusted": self.trusted,
                "key": self.signer.text if self.signer else None,
                "fingerprint": self.signer.fingerprint if self.signer else None}

    def describe(self) -> str:
        if self.signer is None:
            return t("NOT signed: nothing proves who wrote it")
        if not self.valid:
            return t("its signature by key {fingerprint} does NOT hold: altered after signing",
                     fingerprint=self.signer.fingerprint)
        if not self.trusted:
            return t("signed by key {fingerprint}, which is not a key trusted here (pass --key {key} if you trust it)",
                     fingerprint=self.signer.fingerprint, key=self.signer.text)
        return t("signed by organiser key {fingerprint}", fingerprint=self.signer.fingerprint)

    @property
    def ok(self) -> bool:
        return bool(self.signer is not None and self.valid and self.trusted)


def signature_of(replay: ReplayFile, trust: Iterable[PublicKey]) -> Signature:
    trusted = {k.raw for k in trust}
    return Signature(replay.signer, replay.signature_valid,
                     replay.signer is not None and replay.signer.raw in trusted)


def signable(replay: ReplayFile, trust: Iterable[PublicKey], what: str | None = None) -> None:
    """Refuse (VerificationError naming ``what``) to sign ``replay`` again unless its chain holds
    and a key of ``trust`` signed it. Every door that writes a file it read under the organiser's
    key asks here first (a view exported from a judge file, a match file and each duel it
    carries): a file nobody vouches for must never come out signed, vouched for by us. ``what``,
    already in the reader's language, is "the file" when not given."""
    first_bad = verify_chain(replay)
    signature = signature_of(replay, trust)
    if first_bad is not None or not signature.ok:
        problem = t("its hash chain is broken") if first_bad is not None else t(
            "it is {signature}", signature=signature.describe())
        raise VerificationError(t("{what} cannot be exported again: {problem}; nothing was written",
                                  what=t("the file") if what is None else what, problem=problem))


def origin_of(source: dict) -> dict:
    """Where a record came from, for programs as for people. A record imported from a file no
    trusted key signed (``import --unsigned``) says so in its signed header for good, so every
    copy exported from it says it too: a valid signature then vouches for the copy, never for who
    recorded it, and ``ok`` is false (``intact`` still says whether the copy holds)."""
    if source.get("unverified") is True:
        return {"verified": False, "why": "imported from a file no trusted key signed (import --unsigned): "
                                          "the signature vouches for this copy, not for who recorded it"}
    return {"verified": True, "why": "recorded by this organiser, or imported from a file a trusted key signed"}


def trust_of(intact: bool, source: dict, doubt: str = "") -> dict:
    """A stored duel's verdict as programs read it: ``intact`` (chain, anchors and signature
    hold), ``origin`` (``origin_of``), ``doubt`` (a receipt or witness given that cannot be
    believed: ``Verification.doubt``), and ``ok`` only when intact, of verified origin and
    without doubt."""
    origin = origin_of(source)
    return {"ok": intact and origin["verified"] and not doubt, "intact": intact, "origin": origin,
            "doubt": doubt or None}


@dataclass
class FileVerification:
    events: int
    first_bad: int | None
    signature: Signature
    problems: list[str] = field(default_factory=list)      # from --against
    judge_signature: Signature | None = None               # the --against file's
    origin: dict = field(default_factory=lambda: origin_of({}))
    seals: SealReport | None = None                        # a record its players sealed their sides of

    @property
    def authentic(self) -> bool:
        """Signed by a trusted key, or proven derived from a judge file that is."""
        return self.signature.ok or (self.judge_signature is not None and self.judge_signature.ok
                                     and not self.problems)

    @property
    def intact(self) -> bool:
        """The chain holds and a trusted key vouches for the file (whoever recorded it)."""
        return self.first_bad is None and self.authentic and not self.problems

    @property
    def ok(self) -> bool:
        """Intact, recorded by a trusted organiser (``origin_of``), every opened seal matching."""
        return self.intact and self.origin["verified"] and (self.seals is None or self.seals.ok)

    def __repr__(self) -> str:
        chain = "chain intact" if self.first_bad is None else f"chain broken at {self.first_bad}"
        return f"<FileVerification {self.events} events, {chain}, {'ok' if self.ok else 'NOT ok'}>"

    def to_dict(self) -> dict:
        return {"ok": self.ok, "intact": self.intact, "origin": self.origin, "events": self.events,
                "chain_ok": self.first_bad is None,
                "first_bad_link": self.first_bad, "signature": self.signature.to_dict(),
                "judge_signature": self.judge_signature.to_dict() if self.judge_signature else None,
                "problems": self.problems, "seals": self.seals.to_dict() if self.seals else None}


def verify_file(replay: ReplayFile, trust: Iterable[PublicKey], against: ReplayFile | None = None) -> FileVerification:
    """A file's chain end to end, its signature against ``trust``, and with ``against`` (a judge
    file) the proof that it was derived from that record (a view derived from a judge file signed
    by a trusted key is as good as signed)."""
    trust = list(trust)
    problems = verify_against(replay, against) if against is not None else []
    return FileVerification(len(replay.events), verify_chain(replay), signature_of(replay, trust), problems,
                            signature_of(against, trust) if against is not None else None,
                            origin_of(replay.source),
                            seals_of(replay.events, replay.cards) if replay.view == "judge" else None)


def seals_of(events: list[Event], cards: CardDB) -> SealReport | None:
    """What a record's seals hold (sealed, opened, unopened, openings that do not match: LOG-11),
    or None for a record no player sealed anything in. A view holds no seal: the judge's record says."""
    return seal_report(events, cards) if has_seals(events) else None
