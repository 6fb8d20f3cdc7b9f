"""The event store: one stream per duel, on the ``eventsourcing`` library's recorders.

A duel is a few streams in one ``ApplicationRecorder`` table, written together in one transaction:

* ``<id>`` version 0, the header: title, parent and branch point, creation time, the chain's root
  and the duel's secret (32 random bytes each; the secret keys a view's deck-order commitments and
  card names, and never leaves the store except in a judge file); then the event at stream
  position ``i`` as version ``i + 1``: a msgpack envelope ``{"e": event, "t": recorded at,
  "p": previous hash, "h": own hash}``, so the stream is a hash chain (``chain.py``);
* ``<id>/cards``: the facts of the cards the events name, added by the append that first names
  them, with the effect facts the card database had of them (``effects``, from the card scripts:
  ``CardDB.effects_record``): the duel carries both, so any later process folds it the same way
  and its verdict does not change when the installed scripts do;
* ``<id>/head``: after every append an anchor, the event count, head hash, header, card-facts
  and effect-facts digests (the last only once the duel has effect facts) and the result so far, signed with the organiser's key (``signing.py``). Deleting the
  last events, rechaining them or editing the header no longer matches a signed anchor. The
  anchors one group commit writes share one signature, over a Merkle tree of them (``Head``).

A stream is of a kind (``StreamKind``): a duel's is folded by the duel rules (``History``), a
match's (``match.stream``) by the match rules. The kind is named in the header (and its row's
topic), so every stream is chained, anchored, signed, written in one transaction and verified
the same way, and only its fold and the status its anchor signs differ.

Each write also writes the library's search index (``library.py``: what a spectator may find of
each stream) in its transaction.

Two writers at the same position collide on the recorder's primary key: one wins, the other gets
``ConflictError`` and nothing is lost or written twice.

Appends are checked by the same rules fold as ``check``; a stored record is folded without
refusing anything (an imported duel may hold what our rules call violations: ``audit`` lists
them). Snapshots of the fold (plain data, never pickle) are kept every ``SNAPSHOT_EVERY`` events
in a second recorder, each bound to the chain hash at its position and signed, and tagged with a
MAC under a key derived from the signing key's secret (``OrganiserKey.mac``): a process holding
that key checks the MAC, any other the signature. One that does not check out is not used, nor
one of a shape this version does not read (each names its version, ``SNAPSHOT_VERSION`` in
``rules.history``: a newer ygoreplay's is folded past from the events, and left for it as it is).

SQLite is the embedded default (a file at ``default_store_path()``); a ``postgresql://`` URL
selects the ``eventsourcing`` PostgreSQL recorders, shared by many processes and machines. A
store opened read-only changes nothing, and a file that is not a ygoreplay store is refused
without being touched. A PostgreSQL server that does not answer (down, restarting, the
connection cut, or no answer within ``ANSWER_WAIT``: a peer gone without a reset) is said so as
``StoreUnavailable`` by every read and write, once (``_gated``, ``_PostgresWriter``); a write lock
not had within ``LOCK_WAIT`` (SQLite's within ``SQLITE_LOCK_WAIT``), or a statement cancelled
past ``STATEMENT_WAIT``, as ``StoreBusy``; a write whose outcome cannot be learned as
``WriteOutcomeUnknown``, never as "nothing was written".
"""
from __future__ import annotations

from typing import Any

from ..errors import ConflictError, StoreError
from . import committing, listing, opening, postgres, reading, records, verifying, writing
from .records import KINDS, Header, Record, StoredDuel, StreamKind, Vouched, default_store_path, new_id, register_kind
from .verifying import Verification
from .listing import DuelInfo
from .reading import Store

__all__ = ["ConflictError", "DuelInfo", "Header", "KINDS", "Record", "StoredDuel", "Store", "StoreError", "Vouched",
           "StreamKind", "Verification", "default_store_path", "new_id", "register_kind"]

# each other name of the store, read as ``store.NAME``, from the module it lives in (patch a
# name in that module: one patched here is read by no code)
_NAMES = {
    records: "AlteredRow CARDS_TOPIC DUEL ENV_VAR FORMAT HEADER_TOPIC HEADS_MARK HEADS_SAID HEAD_TOPIC Head Header "
             "KINDS MATCH_TOPIC MAX_SNAPSHOT MissingStore Record SNAPSHOT_EVERY SNAPSHOT_TOPIC STORE_ID STORE_TOPIC "
             "STREAM_NAMES StoredDuel StreamKind Vouched _ANCHORED _BEHIND _CARD_FACTS _CARD_FACTS_GUARD "
             "_CARD_FACTS_KEPT _CLOCK _ENTRY_FACTS _ENTRY_FACTS_KEPT _GROUP_LABEL _HEADS _HEAD_LABEL _LAST_OF "
             "_LAST_OF_EACH _LISTED_AT_ONCE _LISTED_KEPT _Live _MARKS_KEPT _NAMED _NO_END _NO_FACTS _POSTGRES_TABLES "
             "_PROOFS_KEPT _ROW_OVERHEAD _Row _SCHEMA_NAME _SIGNED _SIGNED_KEPT _SNAPSHOT_LABEL _SQLITE_EVENTS "
             "_SQLITE_SNAPSHOTS _SQLITE_TABLES _STORE_FILES _STREAM_ID _attachment _blob _card_facts _chained "
             "_checking _digest _first_rows _follows _head_message _head_owners _header_state _keep_card_facts "
             "_marked _now _shown_last _snapshot_data _version _vouched default_store_path key_claim new_id "
             "register_kind row_state",
    opening: "ANSWER_WAIT KEEPALIVES LOCK_WAIT SQLITE_LOCK_WAIT STATEMENT_WAIT _CHECK _COMPUTING_INDEXES _DEFAULTS "
             "_GENERATED _GONE_PHRASES _GONE_STATES _LITERAL _NOT_PLAIN _ON_CONFLICT _SCHEMA _SQLITE_KEYS "
             "_SQL_SPACING _bound _bounded _check_marker _check_postgres _check_sqlite _environment _hung_up _outage "
             "_plain_file _reason _uncommented own_schema",
    writing: "Writing _exportable _head_row _pack_snapshot _replay_file _writing",
    committing: "_Committer _Pending",
    postgres: "_HeadRead _HeadReads _Heads _PostgresWriter _own_connection",
    verifying: "Verification Verifying _in_shape_of",
    listing: "DuelInfo Listing",
    reading: "Store _read_again",
}
_HOMES = {name: module for module, names in _NAMES.items() for name in names.split()}


def __getattr__(name: str) -> Any:
    """``store.NAME``: the name from the module of the store it lives in."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_HOMES[name], name)
