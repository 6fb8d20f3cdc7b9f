"""An event's round: the organiser's pairings file becomes one match per table, each with its
tokens, in one write. Event → round → table → match → duel.

A pairings file is CSV, one table a line: ``table,player,player`` (a header line, such as
``table,player1,player2``, is optional). A round is kept in the store as an attachment of its own
id (``round``: the event, the round's number, its format, and each table's players and match id),
written in the same transaction as its matches; each match carries ``round_table`` (the round and
its table), so a duel's LP sheet can say which table it was played at. Tokens are never kept (only
their digests, as every token): the links and QR codes that hold them are given once, when the
round is made. What is read of a round later (``status``) holds no token.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import msgpack

from .digests import sha256
from .chain import now
from .decks import Banlist
from .access import MODES, Access, recorders_of
from .errors import InputError, StoreError, VerificationError
from .i18n import N_, say
from .lpsheet import guarded
from .match import application as match_app
from .match.policies import POLICIES
from .receipts import ROUND_RECEIPT, Promise, Receipt, Witness, doubt
from .signing import PUBLIC_SIZE, SIGNATURE_SIZE, PublicKey
from .store.reading import Store
from .store.records import Record, new_id
from .text import checked, name_key, number, printable

MAX_TABLES = 1000                  # tables one pairings file may hold
MAX_PAIRINGS_BYTES = 512 * 1024
MAX_NAME = 200
_HEADERS = ({"table", "player"}, {"table", "player1", "player2"}, {"table", "player 1", "player 2"})
_ID = re.compile(r"[0-9a-f]{12}")
#: The round's attachment (of its own id), and each of its matches' link to it.
ATTACHMENT, TABLE_LINK = "round", "round_table"
#: A match's opening events: made with the round, no sign that its table is recording.
_OPENING = frozenset(("match_started", "decklist_registered"))


class PairingsError(InputError):
    """A pairings file that cannot be used: the message names the line."""


@dataclass(frozen=True)
class Pairing:
    table: int
    players: tuple[str, str]


def read_pairings(data: bytes | str, where: str = "pairings") -> list[Pairing]:
    """The tables of a pairings CSV (``table,player,player``; a header line optional), or
    PairingsError naming the line: a table that is no number, given twice, a player missing, at
    two tables or playing themselves, more than ``MAX_TABLES`` tables."""
    if isinstance(data, bytes):
        if len(data) > MAX_PAIRINGS_BYTES:
            raise PairingsError(say("{where}: {size} bytes; a pairings file is at most {most}", where=where,
                                    size=len(data), most=MAX_PAIRINGS_BYTES))
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise PairingsError(say("{where}: not UTF-8 text (byte {start})", where=where, start=exc.start)) from None
    if len(data) > MAX_PAIRINGS_BYTES:
        raise PairingsError(say("{where}: a pairings file is at most {most} characters", where=where,
                                most=MAX_PAIRINGS_BYTES))
    try:
        lines = list(csv.reader(io.StringIO(data.lstrip("\ufeff"), newline="")))
    except csv.Error as exc:
        raise PairingsError(say("{where}: not CSV ({exc})", where=where, exc=exc)) from None
    tables: dict[int, int] = {}             # table -> line
    seated: dict[str, tuple[int, int]] = {}  # a player's name, folded -> (line, table)
    out: list[Pairing] = []
    for line, row in enumerate(lines, 1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if not out and not tables and {c.casefold() for c in cells} in _HEADERS and len(cells) == 3:
            continue                        # the header
        at = f"{where}, line {line}"
        if len(cells) != 3:
            raise PairingsError(say("{at}: {count} field(s); a line is table,player,player", at=at,
                                    count=len(cells)))
        table = number(cells[0])
        if table is None or not 1 <= table <= 100_000:
            raise PairingsError(say("{at}: the table is a number 1..100000, not {value!r}", at=at,
                                    value=printable(cells[0])[:40]))
        if table in tables:
            raise PairingsError(say("{at}: table {table} is paired already, on line {line}", at=at, table=table,
                                    line=tables[table]))
        players = []
        for cell in cells[1:]:
            if not cell:
                raise PairingsError(say("{at}: a player's name is missing", at=at))
            name = checked(cell, f"{at}: a player's name", MAX_NAME)
            if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
                raise PairingsError(say("{at}: a player's name holds a control character ({name})", at=at,
                                        name=printable(name)[:40]))
            players.append(name)
        if name_key(players[0]) == name_key(players[1]):
            raise PairingsError(say("{at}: {player} cannot play themselves", at=at, player=printable(players[0])))
        for name in players:
            if name_key(name) in seated:
                other_line, other_table = seated[name_key(name)]
                raise PairingsError(say("{at}: {player} is at table {table} already (line {line})", at=at,
                                        player=printable(name), table=other_table, line=other_line))
            seated[name_key(name)] = (line, table)
        if len(out) == MAX_TABLES:
            raise PairingsError(say("{at}: a round has at most {most} tables", at=at, most=MAX_TABLES))
        tables[table] = line
        out.append(Pairing(table, (players[0], players[1])))
    if not out:
        raise PairingsError(say("{where}: no tables (a line is table,player,player)", where=where))
    return out


def pairings_of_json(body: Any) -> list[Pairing]:
    """The tables of a JSON request (``[{"table": 1, "players": ["A", "B"]}, ...]``), as the CSV
    reader would take them, so that both forms are refused alike."""
    if not isinstance(body, list):
        raise PairingsError(say("tables: a list of {shape}", shape="{table, players: [name, name]}"))
    out = io.StringIO()
    writer = csv.writer(out)
    for i, item in enumerate(body):
        if not (isinstance(item, dict) and set(item) == {"table", "players"} and isinstance(item["players"], list)
                and len(item["players"]) == 2 and all(isinstance(p, str) for p in item["players"])
                and isinstance(item["table"], int) and not isinstance(item["table"], bool)):
            raise PairingsError(say("tables[{i}]: a table is {shape}", i=i, shape="{table: number, players: [name, name]}"))
        writer.writerow([item["table"], *item["players"]])
    return read_pairings(out.getvalue(), "tables")


# -- making a round ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class RoundSettings:
    """What every match of a round shares."""

    event: str
    round: int
    format: str = ""
    policy: str = "tcg-2024"
    banlist: Banlist = Banlist("(none given)")
    visibility: str = "unlisted"
    #: A round is played on paper: its duels are witnessed (an illegal play nobody noticed is
    #: kept, flagged), unless the organiser says they are a machine's.
    mode: str = "witnessed"

    def checked(self) -> "RoundSettings":
        checked(self.event, "the event's name", MAX_NAME)
        checked(self.format, "the format", MAX_NAME)
        if not self.event.strip():
            raise InputError(say("the event's name is missing"))
        if not 0 <= self.round <= 10_000:
            raise InputError(say("the round is a number 0..10000, not {round}", round=self.round))
        if self.mode not in MODES:
            raise InputError(say("the mode is one of {join}, not {mode!r}",
                                 join=', '.join(MODES), mode=self.mode))
        if self.policy not in POLICIES:
            raise InputError(say("the policy is one of {join}, not {policy!r}",
                                 join=', '.join(POLICIES), policy=self.policy))
        return self


@dataclass(frozen=True)
class NewTable:
    """A table of a round just made: its match, and the tokens and links to hand out (once)."""

    table: int
    players: tuple[str, str]
    match: str
    tokens: dict[str, str]
    links: dict[str, str]

    record: dict[str, str]

    @property
    def recorder_link(self) -> str:
        """What the table's QR code opens: the recorder's page for the match's current duel."""
        return self.record["recorder"]

    def to_dict(self) -> dict:
        return {"table": self.table, "players": list(self.players), "match": self.match, "tokens": self.tokens,
                "links": self.links, "record": self.record}


@dataclass(frozen=True)
class NewRound:
    id: str
    settings: RoundSettings
    tables: list[NewTable]

    def to_dict(self) -> dict:
        s = self.settings
        return {"id": self.id, "event": s.event, "round": s.round, "format": s.format, "policy": s.policy,
                "tables": [t.to_dict() for t in self.tables]}


def create_round(store: Store, pairings: Sequence[Pairing], settings: RoundSettings, base: str = "",
                 witness: Witness | None = None) -> NewRound:
    """The round and one match per table, written in one transaction (all or nothing); each
    table's tokens, links to the match page (``{base}/match/{id}?token=...``) and the recorder's
    link (``record``, its QR code: ``{base}/record/match/{id}?token=...``, which opens the
    recorder's page for the match's current duel, or starts the next), and at a paper table each
    seat's (``access.recorders_of``)."""
    settings = settings.checked()
    round_id = new_id()
    streams, tables, links = [], [], {}
    for pairing in pairings:
        events = match_app.started(list(pairing.players), settings.policy, settings.banlist, format=settings.format,
                                   event_name=settings.event, round=settings.round)
        title = f"{settings.event}, round {settings.round}, table {pairing.table}: {' vs '.join(pairing.players)}"
        spec, tokens = match_app.match_stream(events, title[:500], settings.visibility, (None, settings.event, None),
                                              settings.mode)
        match_id = new_id()
        spec["stream_id"] = match_id
        spec["attachments"][TABLE_LINK] = {"round": round_id, "table": pairing.table}
        spec["provenance"] = seated_at(round_id, pairing.table)
        streams.append(spec)
        tables.append(NewTable(pairing.table, pairing.players, match_id, tokens,
                               {role: f"{base}/match/{match_id}?token={token}" for role, token in tokens.items()},
                               {role: f"{base}/record/match/{match_id}?token={tokens[role]}"
                                for role in recorders_of(settings.mode)}))
        links[match_id] = pairing.table
    kept = {"event": settings.event, "round": settings.round, "format": settings.format, "policy": settings.policy,
            "created": now(), "tables": [{"table": t.table, "players": list(t.players), "match": t.match}
                                         for t in tables]}
    kept = sealed(store, round_id, kept)
    store.record_together(streams, {round_id: {ATTACHMENT: kept}})
    match_app.witness_heads(store, witness, [(spec["stream_id"], len(spec["events"]), None) for spec in streams],
                            [_round_receipt(store, round_id, kept)] if witness is not None else [])
    return NewRound(round_id, settings, tables)


# -- the round's signature ---------------------------------------------------------------------------

#: What a round's seal signs begins with this label (``signing``: no signature over one kind of
#: statement is passed off as another's).
ROUND_LABEL = b"ygoreplay/round/1\0"
#: The field of a round's record that holds its seal (``sealed``).
SEAL = "seal"


def seated_at(round_id: str, table: int) -> dict:
    """What a round's match's header says of its table (its ``provenance``, which its signed
    anchors name): the round's record could be stripped of its seal in the database and passed
    off as one written before rounds were signed; a match that signs its round says it was not."""
    return {"round": round_id, "table": table}


def round_message(round_id: str, kept: dict, seal: dict) -> bytes:
    """What a round's seal signs: its label, then the round's id, event, number, format, policy,
    creation time, each table (number, players, match) in order, and when and how it was signed
    (``late``: by ``sign_round``, after the round was written unsigned)."""
    return ROUND_LABEL + msgpack.packb([
        round_id, kept["event"], kept["round"], kept.get("format"), kept.get("policy"), kept.get("created"),
        [[table["table"], list(table["players"]), table["match"]] for table in kept["tables"]],
        seal["signed"], bool(seal.get("late"))])


def sealed(store: Store, round_id: str, kept: dict, late: bool = False) -> dict:
    """The round's record with its seal: the organiser's signature over ``round_message``. The one
    place a round's record is signed (``create_round``, and ``sign_round`` for one written before)."""
    seal = {"signed": now(), "late": late}
    message = round_message(round_id, kept, seal)
    return {**kept, SEAL: {**seal, "key": store.key.public.raw, "signature": store.key.sign(message)}}


def _round_receipt(store: Store, round_id: str, kept: dict) -> Receipt:
    """The witness's receipt of the round's seal (the round's id, 1, the digest of what its seal
    signs; one seal a round: ``sign_round`` refuses a round signed already): a round deleted
    from the store, or stripped of its seal, is found by ``verify --witness``. Given to the
    witness with its matches' heads; a witness out of reach leaves it unwitnessed, the round stands."""
    return Receipt.issue(store.key, round_id, 1, _sealed_digest(round_id, kept), ROUND_RECEIPT)


def _sealed_digest(round_id: str, kept: dict) -> bytes:
    """The digest of what the round's seal signs: the head of the witness's receipt of it."""
    return sha256(round_message(round_id, kept, kept[SEAL])).digest()


def made_with(store: Store, match_id: str) -> str | None:
    """The round a match's signed header says it was made with (``seated_at``), None for none
    (a match made before rounds were signed, alone, or one that cannot be read or is altered)."""
    try:
        info = store.info(match_id)
    except (StoreError, VerificationError):
        return None
    made = (info.provenance or {}).get("round") if info.signed else None
    return made if isinstance(made, str) else None


def signer_of(store: Store, round_id: str, kept: dict,
              made: Callable[[Store, str], str | None] = made_with,
              witness: Witness | None = None) -> PublicKey | None:
    """The key whose seal the round's record holds, None for a record with none (written before
    rounds were signed: ``unsealed_check``, ``_never_sealed``), or VerificationError saying what
    does not hold: a seal not in its form, by a key not trusted here, or over other tables (a
    table renumbered, dropped or added, a player or match changed in the database)."""
    seal = kept.get(SEAL)
    if seal is None:
        _unsealed_check(store, round_id, kept, made)
        _never_sealed(store, round_id, witness)
        return None
    if not (isinstance(seal, dict) and isinstance(seal.get("signed"), str) and type(seal.get("late")) is bool
            and isinstance(seal.get("key"), bytes) and len(seal["key"]) == PUBLIC_SIZE
            and isinstance(seal.get("signature"), bytes) and len(seal["signature"]) == SIGNATURE_SIZE):
        raise VerificationError(say("round {round_id}: its seal is not in the form a round's is signed in "
                                    "(rewritten in the database); nothing of it is shown. Run 'ygoreplay verify "
                                    "{round_id}'", round_id=round_id))
    key = store.trusts(seal["key"])
    if key is None:
        raise VerificationError(say("round {round_id}: its record is signed by key {key}, not a key trusted here "
                                    "(pass --key); nothing of it is shown", round_id=round_id,
                                    key=PublicKey(seal["key"]).fingerprint))
    if not key.verify(seal["signature"], round_message(round_id, kept, seal)):
        raise VerificationError(say("round {round_id}: its record does not hold the organiser's signature: it was "
                                    "rewritten in the database (a table renumbered, dropped or added, a player or "
                                    "match changed); nothing of it is shown. Run 'ygoreplay verify {round_id}'",
                                    round_id=round_id))
    return key


def _unsealed_check(store: Store, round_id: str, kept: dict, made: Callable[[Store, str], str | None]) -> None:
    """A record with no seal is a round written before rounds were signed, unless one of its
    matches' signed headers names a round (``made``: ``made_with``, or ``TableRows``' kept
    answers of it): this one (its seal was removed in the database), or another (a record made
    up in the database over a signed round's matches): VerificationError, naming the table."""
    for table in kept["tables"]:
        named = made(store, table["match"])
        if named == round_id:
            raise VerificationError(say("round {round_id}: its record's signature was removed in the database (the "
                                        "match of table {table} signs that it was made with this round, signed); "
                                        "nothing of it is shown. Run 'ygoreplay verify {round_id}'",
                                        round_id=round_id, table=table["table"]))
        if named is not None:
            raise VerificationError(say("round {round_id}: its record is not signed, and the match of its table "
                                        "{table} signs that it was made with round {other}: the record was written "
                                        "in the database; nothing of it is shown", round_id=round_id,
                                        table=table["table"], other=named))


def _never_sealed(store: Store, round_id: str, witness: Witness | None) -> None:
    """A record with no seal whose witness holds the receipt of its seal (``_round_receipt``) was
    stripped of it in the database: a round signed late (``sign_round``) has no match whose
    header names it (``_unsealed_check``), and passed for one written before rounds were signed
    on every read but ``verify --witness``. VerificationError saying so. A receipt the store
    cannot believe (``receipts.doubt``) proves nothing; a witness out of reach leaves the round
    read as it stands, as it leaves a write standing (``receipts.issue``)."""
    if witness is None:
        return
    try:
        receipt = witness.latest(round_id, ROUND_RECEIPT)
    except StoreError:
        return
    if receipt is not None and not doubt(store, Promise(receipt, "its witness")):
        raise VerificationError(say("round {round_id}: its record's signature was removed in the database (its "
                                    "witness holds the receipt of its seal, signed at {time}); nothing of it is "
                                    "shown. Run 'ygoreplay verify {round_id} --witness'",
                                    round_id=round_id, time=receipt.time))


def sign_round(store: Store, round_id: str, witness: Witness | None = None) -> dict:
    """The organiser signs a round written before rounds were signed, its record as it stands
    now (``late``: its page says so): the one write of a round's record after it is made. A
    round signed already is refused (InputError), as is one that cannot be read (one stripped of
    its seal, its witness holding the receipt: never signed again as it stands). The record signed."""
    loaded = load_round(store, round_id, witness=witness)
    if loaded["signed"] is not None:
        raise InputError(say("round {round_id} is signed already (by key {key}, at {time}); nothing was written",
                             round_id=round_id, key=loaded["signed"]["key"], time=loaded["signed"]["time"]))
    kept = {name: value for name, value in loaded.items() if name != "signed"}
    kept = sealed(store, round_id, kept, late=True)
    store.attach(round_id, ATTACHMENT, kept)
    match_app.witness_heads(store, witness, [], [_round_receipt(store, round_id, kept)] if witness is not None else [])
    return load_round(store, round_id, witness=witness)


# -- reading a round ------------------------------------------------------------------------------

def load_round(store: Store, round_id: str, rows: "TableRows | None" = None, witness: Witness | None = None) -> dict:
    """The round as kept (no token in it) and who signed it (``signed``: the key's fingerprint,
    when, and whether ``late``; None for a round written before rounds were signed, which every
    reader marks unsigned); StoreError for none, VerificationError for a record its seal does not
    hold (``signer_of``), or with none that its ``witness`` saw sealed. Every reader of a round
    reads it here: its page, JSON, stream, results, ``round show``, ``round time`` and ``verify``.
    ``rows``: the reader's kept rows, whose answers of ``made_with`` are kept (an unsigned round
    of 500 tables read them again on each reading, ~0.1 s of CPU)."""
    kept, key = _read_round(store, round_id, rows.made_with if rows is not None else made_with, witness)
    seal = kept.get(SEAL)
    signed = None if key is None else {"key": key.fingerprint, "time": seal["signed"], "late": seal["late"]}
    return {**{name: value for name, value in kept.items() if name != SEAL}, "signed": signed}


def _read_round(store: Store, round_id: str, made: Callable[[Store, str], str | None] = made_with,
                witness: Witness | None = None) -> tuple[dict, PublicKey | None]:
    """The round's record as stored (its seal in it) and the key that signed it (``signer_of``)."""
    if not _ID.fullmatch(round_id):
        raise StoreError(say("no round {round_id!r} (a round's id is 12 hex digits)", round_id=round_id))
    kept = store.attachment(round_id, ATTACHMENT)
    if kept is None:
        raise StoreError(say("no round {round_id!r} in {name}", round_id=round_id, name=store.name))
    if not _as_written(kept):
        raise StoreError(say("round {round_id}: its record is not in the form a round is written in "
                             "(rewritten in the database); nothing of it is shown",
                             round_id=round_id))
    return kept, signer_of(store, round_id, kept, made, witness)


@dataclass(frozen=True)
class RoundVerification:
    """What ``verify`` says of a round: ``ok`` only when its record holds the organiser's seal and
    is the one its witness saw (when it saw one); ``problem`` says what does not hold."""

    id: str
    ok: bool
    tables: int = 0
    signed: dict | None = None
    problem: str = ""
    witnessed: bool | None = None       # None: no witness named; False: it holds no receipt of the round
    doubt: str = ""

    def to_dict(self) -> dict:
        return {"id": self.id, "kind": "round", "ok": self.ok, "tables": self.tables, "signed": self.signed,
                "problem": self.problem or self.doubt, "witnessed": self.witnessed}


def _held(store: Store, round_id: str) -> bool:
    """Whether the store holds a record of ``round_id`` (readable or not)."""
    if not _ID.fullmatch(round_id):
        return False
    try:
        return store.attachment(round_id, ATTACHMENT) is not None
    except StoreError:
        return True


def verify_round(store: Store, round_id: str, witness: Witness | None = None) -> RoundVerification:
    """The round's record checked: its seal (``signer_of``), then against the receipt its witness
    kept (``_round_receipt``): a round deleted from the store, or stripped of its seal, is NOT ok
    when its witness holds its receipt. A round written before rounds were signed is NOT ok
    either (nothing vouches for its tables), said so, with how to sign it. StoreError for no
    round that neither the store nor its witness knows."""
    receipt = witness.latest(round_id, ROUND_RECEIPT) if witness is not None and _ID.fullmatch(round_id) else None
    doubted = doubt(store, Promise(receipt, "its witness")) if receipt is not None else ""
    seen = None if witness is None else receipt is not None
    trusted = receipt if receipt is not None and not doubted else None
    try:
        kept, key = _read_round(store, round_id, witness=witness)
    except StoreError as exc:
        if _held(store, round_id):          # a record there, not in a round's form: said, NOT ok
            return RoundVerification(round_id, False, witnessed=seen, problem=str(exc), doubt=doubted)
        if trusted is None:
            raise
        return RoundVerification(round_id, False, witnessed=seen, problem=say(
            "the store holds no round {round_id}, but its witness holds the round's receipt signed at {time}: the "
            "round was deleted from the database", round_id=round_id, time=trusted.time))
    except VerificationError as exc:
        return RoundVerification(round_id, False, witnessed=seen, problem=str(exc), doubt=doubted)
    tables = len(kept["tables"])
    if key is None:                         # its witness saw it sealed: refused above (``_never_sealed``)
        problem = say("its record is not signed: it was written before rounds were signed, and nothing vouches for "
                      "its tables (one renumbered or dropped in the database is not seen); the organiser may sign "
                      "it as it stands: ygoreplay round sign {round_id}", round_id=round_id)
        return RoundVerification(round_id, False, tables, None, problem, seen, doubted)
    seal = kept[SEAL]
    signed = {"key": key.fingerprint, "time": seal["signed"], "late": seal["late"]}
    if trusted is not None and trusted.head != _sealed_digest(round_id, kept):
        return RoundVerification(round_id, False, tables, signed, say(
            "its record is not the one its witness saw signed at {time}", time=trusted.time), seen, doubted)
    return RoundVerification(round_id, not doubted, tables, signed, "", seen, doubted)


def _as_written(kept: dict) -> bool:
    """Whether a round's record is in ``create_round``'s form: its page reads its fields as what
    they are (a table's number of text went into its markup), and a round has a table."""
    tables = kept.get("tables")
    return (isinstance(kept.get("event"), str) and type(kept.get("round")) is int
            and all(isinstance(kept.get(name, ""), (str, type(None))) for name in ("format", "policy", "created"))
            and isinstance(tables, list) and bool(tables) and all(
                isinstance(table, dict) and type(table.get("table")) is int and isinstance(table.get("match"), str)
                and isinstance(table.get("players"), list) and len(table["players"]) == 2
                and all(isinstance(player, str) for player in table["players"]) for table in tables))


#: Who entered a witnessed duel's events (``Event.entered_by``), as the round page names them, in
#: the order it lists them; an event no one is stamped on was entered with the recorder's token.
RECORDERS = {"recorder": N_("scorekeeper"), "p0": N_("player 0"), "p1": N_("player 1"), "judge": N_("judge")}


class TableRows:
    """Each table's row of a round as last made, kept with what it was made from: its match's
    last anchor (``Store.head_mark``), the count and last hash of each of its duels' events a
    reader may see (``seen``), and its current duel's anchor where the row read its status. A
    row is made again only when one of those moved: reading a round was every table's match and
    duel again on each change, ~1.2 ms of CPU a table (0.6 s a change at 500 tables). The
    private check (``hidden_table``) is made on every read, never kept. Each read asks the store
    one statement for every table's access record and one for their marks (``read``): a
    statement a table for each was ~0.14 ms of CPU a table, 69 ms a read at 500 tables.

    One reader at a time (the service reads a round under its lock; the command line once)."""

    def __init__(self) -> None:
        self._matches: dict[str, tuple[Any, tuple]] = {}    # match -> (head mark, what its stream says)
        self._rows: dict[str, tuple[tuple, Any, dict]] = {}  # match -> (key, its duel's mark, the row)
        self._made_with: dict[str, str | None] = {}           # match -> ``made_with`` (a header never changes)
        self.made = 0                    # rows made (not taken as kept): what a bench and tests count

    def read(self, store: Store, kept: dict, seen: Callable[[str], Sequence[Record]], anyone: bool) -> list[dict]:
        """Each table's row of the round ``kept`` (``load_round``), a private match's only its
        number to ``anyone`` (``hidden_table``).
        The access records of all the tables are read in one statement, and then, in one more,
        the marks of their matches and of the duels whose kept rows hold a mark: both before any
        match or duel is read (a change meanwhile moves a mark again)."""
        tables, of = kept["tables"], (kept["event"], kept["round"])
        hidden = _private(store, [table["match"] for table in tables]) if anyone else set()
        shown = [table["match"] for table in tables if table["match"] not in hidden]
        kept = (self._rows.get(match_id) for match_id in shown)
        marks = store.head_marks(shown + [row[0][1][-1][0] for row in kept if row is not None and row[1] is not None])
        return [hidden_table(table["table"]) if table["match"] in hidden else self.row(store, table, of, seen, marks)
                for table in tables]

    def made_with(self, store: Store, match_id: str) -> str | None:
        """``made_with``, read once a match: a header is written once, and one altered later
        (its match then refused) never hides what was read of it."""
        if match_id not in self._made_with:
            self._made_with[match_id] = made_with(store, match_id)
        return self._made_with[match_id]

    def match_part(self, store: Store, match_id: str, mark: Any) -> tuple[Any, tuple]:
        """The match's mark and (status, duels, last time, the event and round its signed
        ``match_started`` names), read again when its mark moved."""
        kept = self._matches.get(match_id)
        if kept is not None and kept[0] == mark:
            return kept
        info = store.info(match_id)
        # none of a match that cannot be read, nor of one whose header its anchors do not sign
        # (altered: its page refuses it, so its table shows no duel, as for one not there)
        records = _records(store, match_id)[:info.events] if info.signed else []
        duels = [r.event.duel for r in records if r.event.kind == "game_started" and r.event.duel]
        times = [r.recorded for r in records if r.event.kind not in _OPENING][-1:]
        started = records[0].event if records and records[0].event.kind == "match_started" else None
        played_in = (started.event_name, started.round) if started is not None else None
        part = self._matches[match_id] = (mark, (info.status, duels, times, played_in))
        return part

    def row(self, store: Store, table: dict, of: tuple[str, int], seen: Callable[[str], Sequence[Record]],
            marks: dict) -> dict:
        """The table's row: kept while its match's and duels' marks hold, else made again
        (``marks``: ``Store.head_marks`` of its match, and of its duel where its kept row holds one).
        The round's record is not signed, its match is: a match whose signed ``match_started`` is
        not of this round (``of``: its event and number) is none of its tables' (no duel, no
        score, as a match that cannot be read), and a table's players are those its match signs
        (rewritten in the round's record, "Kaiba" stood over Yugi's score and win in the results)."""
        mark, (s, duels, times, played_in) = self.match_part(store, table["match"], marks[table["match"]])
        if played_in != of:
            s, duels, times = {}, [], []
        shown = {duel: seen(duel) for duel in duels}
        key = (mark, tuple((duel, len(events), events[-1].hash if events else None) for duel, events in shown.items()))
        kept = self._rows.get(table["match"])
        if kept is not None and kept[0] == key and (kept[1] is None or marks[duels[-1]] == kept[1]):
            return kept[2]
        called = bool(duels) and any(r.event.kind in _CALLS for r in shown[duels[-1]])
        duel_mark = (marks[duels[-1]] if duels[-1] in marks else store.head_mark(duels[-1])) if called else None
        row = _row(store, table, s, duels, times, shown)
        self._rows[table["match"]] = (key, duel_mark, row)
        self.made += 1
        return row


def status(store: Store, round_id: str, seen: Callable[[str], Sequence[Record]] | None = None,
           anyone: bool = False, rows: TableRows | None = None, witness: Witness | None = None) -> dict:
    """The round now: each table's players, its match's score and state, when its match or a
    duel of it last had an event after the match was made (a table being recorded), and who is
    recording its current duel (``recording``). Holds no token.

    ``seen(duel)`` gives the duel's events anyone may see now (the service cuts them at the
    spectators' delay, so the page tells nothing a spectator is not told yet); by default all
    stored events (the organiser's command line). ``anyone``: the reader holds the round's
    address and no token (its page): a table whose match is private is only its number
    (``hidden_table``); a public or unlisted match's standings are the round's, as the match's
    own spectator link shows them to whoever the organiser handed it. ``rows``: each table's row
    as last read, made again only where its streams moved (``TableRows``); a row kept is the
    same object, so a follower's stream tells the rows that changed by identity. ``witness``: the
    store's, which a round stripped of its seal is found by (``load_round``)."""
    rows = rows if rows is not None else TableRows()
    kept = load_round(store, round_id, rows, witness)
    seen = seen or (lambda duel: _records(store, duel))
    tables = rows.read(store, kept, seen, anyone)
    return {"id": round_id, "event": kept["event"], "round": kept["round"], "format": kept.get("format", ""),
            "policy": kept.get("policy"), "created": kept.get("created"), "signed": kept["signed"], "tables": tables,
            "counts": counts(tables)}


def _row(store: Store, table: dict, s: dict, duels: list[str], times: list[str],
         shown: dict[str, Sequence[Record]]) -> dict:
    """A table's row from its match's status, duels and last time, and its duels' events shown."""
    times = times + [events[-1].recorded for events in shown.values() if events]
    # English, as the JSON gives it (what scripts match on); the page translates it (``said``)
    state = (N_("ended") if s.get("ended") else say("playing duel {number}", number=s["playing"])
             if s.get("playing") else N_("between duels") if duels else N_("not started"))
    return {"table": table["table"], "players": list(s.get("players") or table["players"]), "match": table["match"],
            "score": list(s.get("games") or [0, 0, 0]), "state": state,
            "winner": s.get("winner") if s.get("ended") else None,
            "how": s.get("how") if s.get("ended") else None,
            "points": s.get("points") if s.get("ended") else None, "duels": duels,
            "last_event": max(times) if times else None,
            "recording": recording(shown[duels[-1]]) if duels else None,
            "attention": attention(s, _duel_status(store, duels[-1], shown[duels[-1]]) if duels else {}),
            "time": s.get("time")}


def changed_tables(before: dict, after: dict) -> dict | None:
    """What a follower of the round is sent when it moves from ``before`` to ``after`` (both as
    ``status`` gives them): the tables whose row changed and the counts (``{"tables", "counts"}``,
    no table when none changed), or None when more than rows changed (another round, its tables
    not the same ones): the whole round again. Each follower was sent the whole round on every
    change, 69 KB at 200 tables, ~170 KB at 500; a row kept (``TableRows``) is the same object."""
    if ({k: v for k, v in before.items() if k not in ("tables", "counts")}
            != {k: v for k, v in after.items() if k not in ("tables", "counts")}
            or [row["table"] for row in before["tables"]] != [row["table"] for row in after["tables"]]):
        return None
    return {"tables": [new for old, new in zip(before["tables"], after["tables"]) if old is not new and old != new],
            "counts": after["counts"]}


#: What a table may need the organiser or a judge for, in the order the round lists it
#: (``attention``): the codes the JSON gives, and the words the pages say them in.
ATTENTION = {"judge_called": N_("judge called"), "disputed": N_("entry disputed"),
             "result_due": N_("result to record"), "time_called": N_("time called")}


def attention(match: dict, duel: dict) -> list[str]:
    """What a table needs now, from its match's signed status and its current duel's
    (``match.stream.attention``, ``History.waiting_for_judge``): a judge called at the table,
    in the match (MATCH-08) or in the duel, an entry disputed and not ruled on, a result the
    rules give that is not recorded (MATCH-01, PEN-02), the time called (TIME-01..03)."""
    waiting = duel.get("judge") or {}
    wanted = {"judge_called": bool(match.get("judge_called") or waiting.get("calls")),
              "disputed": bool(waiting.get("disputes")), "result_due": bool(match.get("result_due")),
              "time_called": bool(match.get("time")) and not match.get("ended")}
    return [code for code in ATTENTION if wanted[code]]


def counts(tables: Sequence[dict]) -> dict[str, int]:
    """How many of a round's tables are in each state, and how many need someone (``attention``):
    the line a 500-table round's page opens with."""
    out = {"tables": len(tables), "ended": 0, "playing": 0, "between_duels": 0, "not_started": 0, "private": 0,
           "attention": 0}
    for table in tables:
        state = table["state"].replace(" ", "_")
        out[state if state in out else "playing"] += 1
        out["attention"] += bool(table.get("attention"))
    return out


#: The columns of a round's results as CSV (``results_csv``): one row a table.
RESULTS_HEADER = ("table", "player_1", "player_2", "won_1", "won_2", "drawn", "state", "winner", "how", "points_1",
                  "points_2", "attention", "match")


def results_csv(round_now: dict) -> str:
    """The round's results as RFC 4180 CSV (CRLF line ends, a header row), one row a table as
    ``status`` gives it: the score, the winner's name and how, each player's match points once
    the result is recorded (MATCH-01/02), what the table still needs. What a tournament program
    reads in for the standings and the next round's pairings; a private table is its number only,
    as on the round's page. A player's name is guarded so that no spreadsheet runs it."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(RESULTS_HEADER)
    for table in round_now["tables"]:
        players = table["players"] or ["", ""]
        score = (list(table["score"]) + [0, 0, 0])[:3] if table["score"] else ["", "", ""]
        points = table.get("points") or ["", ""]
        winner = table.get("winner")
        writer.writerow([table["table"], guarded(players[0]), guarded(players[1]), *score,
                         table["state"], guarded(players[winner]) if winner in (0, 1) else "",
                         table.get("how") or "", *points, " ".join(table.get("attention") or []),
                         table.get("match") or ""])
    return out.getvalue()


#: The kinds of event a table's call of a judge or a dispute is made of (``History.waiting_for_judge``).
_CALLS = frozenset(("judge_note", "entry_disputed"))


def _duel_status(store: Store, duel_id: str, records: Sequence[Record]) -> dict:
    """A duel's status as its signed anchor says it (empty for one not there or altered), read
    only for a duel whose ``records`` (those its reader may see) hold a call or a dispute: most
    tables hold none, and a round of hundreds read every anchor again on each change. Empty too
    while the reader sees less than the anchor counts (a spectator's delay): the anchor's calls
    and disputes are the whole record's, and a newer one flagged the table before its delay."""
    if not any(r.event.kind in _CALLS for r in records):
        return {}
    try:
        info = store.info(duel_id)
    except (StoreError, VerificationError):
        return {}
    return info.status if info.signed and info.events <= len(records) else {}


def _private(store: Store, match_ids: list[str]) -> set[str]:
    """Those of a round's matches that show nothing to a reader with no token: private, or
    their access record not there or not readable (as the service reads a duel's: none is
    private). Their records read in one statement (``Store.attachments``)."""
    refused: dict[str, StoreError] = {}
    try:
        found = store.attachments(match_ids, "access", refused)
    except StoreError:                   # none read: each, as when each read was refused
        return set(match_ids)
    hidden = set(refused)
    for match_id, access in found.items():
        try:
            if Access.from_dict(access or {"visibility": "private"}).visibility == "private":
                hidden.add(match_id)
        except (VerificationError, InputError, KeyError, TypeError, ValueError):
            hidden.add(match_id)
    return hidden


def hidden_table(number: int) -> dict:
    """A private match's table on the round's page: its number, and that it is private. No
    players, score, state, match, duel or time: what a private match is to anyone without its
    token (404, ``access``)."""
    return {"table": number, "private": True, "players": [], "match": None, "score": [], "state": N_("private"),
            "winner": None, "how": None, "points": None, "duels": [], "last_event": None, "recording": None,
            "attention": [], "time": None}


def recording(records: Sequence[Record]) -> dict | None:
    """Who entered a duel's events (each role once, ``RECORDERS``' order and words: "player 0 +
    player 1") and when its last entry came in; None before its first."""
    if not records:
        return None
    roles = {r.event.entered_by or "recorder" for r in records}
    by = [role for role in RECORDERS if role in roles]
    return {"by": by, "who": " + ".join(RECORDERS[role] for role in by), "last_entry": records[-1].recorded}


def _records(store: Store, stream_id: str) -> list[Record]:
    """A stream's stored events its signed anchors vouch for (``Store.records_after``): none for
    a stream not there, nor for one whose header they do not name (altered)."""
    try:
        return store.records_after(stream_id, 0)
    except (StoreError, VerificationError):
        return []


def match_details(store: Store, duel_id: str, sees: Callable[[str, Access], bool]) -> dict:
    """What a duel's match says of where it was played: the event, round, table and format,
    for a reader ``sees`` lets know of the match (given its id and access record); empty for a
    duel of no match, and for a reader who may read the duel but not its match. A public duel
    may be linked into a private or unlisted match (``access.linkable_into``): its reader may
    not learn that the match exists, nor its event, round, table or format. Every door that shows
    a duel's match (the LP sheet, on the command line and over HTTP) asks here, with its reader."""
    match_id = store.match_of(duel_id)
    if match_id is None:
        return {}
    try:            # nothing of a match whose header its anchors do not name (altered): not its seat either
        access = Access.from_dict(store.attachment(match_id, "access") or {"visibility": "private"})
        if not sees(match_id, access):
            return {}
        first = store.records_after(match_id, 0)[:1]
    except (StoreError, VerificationError):
        return {}
    out: dict[str, Any] = {"match": match_id}
    if first and first[0].event.kind == "match_started":
        started = first[0].event
        out.update(event=started.event_name, round=started.round, format=started.format)
    seat = store.attachment(match_id, TABLE_LINK)
    if seat is not None:
        out["table"] = seat["table"]
    return out


__all__ = ["ATTENTION", "MAX_TABLES", "RECORDERS", "RESULTS_HEADER", "ROUND_LABEL", "NewRound", "NewTable", "Pairing",
           "PairingsError", "RoundSettings", "RoundVerification", "TableRows", "changed_tables", "create_round",
           "load_round", "match_details", "pairings_of_json", "read_pairings", "recording", "results_csv",
           "round_message", "seated_at", "sealed", "sign_round", "signer_of", "status", "verify_round"]
