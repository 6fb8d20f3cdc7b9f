"""The package's one exception base, and what each kind of error means to a user.

Every error ygoreplay raises on purpose derives from ``YgoreplayError`` and carries the exit code
the command line ends with, so the CLI (and the HTTP service) map errors in one place:

* ``InputError`` (2): a file, argument or request that cannot be read or used: says what and where;
* ``RuleViolation`` (1, in ``rules.base``): an event the rules refuse, with its rule ID;
* ``VerificationError`` (1): a record or file that fails verification (altered, truncated,
  signed by no trusted key); nothing is derived from it;
* ``StoreError`` (2): the store cannot be opened, read or written as asked;
* ``ConflictError`` (3): another writer appended to the same duel first; nothing was written;
* ``StoreUnavailable`` (75, EX_TEMPFAIL): the store's database is not answering, or ``StoreBusy``
  another session holds its lock too long (or a statement ran too long): nothing was written,
  try again (the service's 503 with ``Retry-After``); ``WriteOutcomeUnknown`` (5): the database
  stopped answering after a write was sent, so whether it was stored is not known: read the
  head before retrying;
* ``Forbidden`` (2): the caller's role may not do this (``access.WRITERS``): the service's 403;
* ``Unconfirmed`` (2): an entry that looks entered twice (two devices at one table): stored only
  once its device confirms it (the service's 428, ``confirm`` naming why).
"""
from __future__ import annotations


class YgoreplayError(Exception):
    """Base of every error ygoreplay raises on purpose; ``exit_code`` is the CLI's exit code."""

    exit_code = 2


class InputError(YgoreplayError, ValueError):
    """Input that cannot be read or used (a malformed file, a bad argument): says what and where."""

    exit_code = 2


class VerificationError(YgoreplayError):
    """A record or file that fails verification: altered, truncated, or not signed by a trusted key."""

    exit_code = 1


class StoreError(YgoreplayError):
    """A store problem a user can act on: unknown duel, a file that is not a store, a write refused.
    (A database that does not answer is ``StoreUnavailable``, not one of these.)"""

    exit_code = 2


class ConflictError(StoreError):
    """Another writer appended at the same position first; nothing of this append was written."""

    exit_code = 3


class StoreUnavailable(YgoreplayError):
    """The store's database does not answer (down, restarting, the connection cut): try again
    in ``retry_after`` seconds. Not a ``StoreError``: the callers that take a ``StoreError`` for
    a duel not there or altered must never take an outage for one. ``code`` tells the kinds
    apart in the service's answer (503)."""

    exit_code = 75                   # EX_TEMPFAIL: try again later
    code = "store_unavailable"
    retry_after = 5
    lost = False                     # a connection lost under a read: the store reads once more


class StoreBusy(StoreUnavailable):
    """Another session held the store's write lock past ``store.LOCK_WAIT`` (SQLite's past
    ``store.SQLITE_LOCK_WAIT``), or the server cancelled a statement past ``store.STATEMENT_WAIT``:
    nothing was written."""

    code = "store_busy"
    retry_after = 1


class WriteOutcomeUnknown(StoreUnavailable):
    """A write was sent but the database stopped answering before saying whether it committed,
    and cannot be asked now: it may be stored or not. Read the duel's head before retrying."""

    exit_code = 5                    # not EX_TEMPFAIL: a blind retry may record it twice
    code = "write_outcome_unknown"


class Forbidden(YgoreplayError):
    """A write the caller's role may not make (``access.WRITERS``); nothing was written."""

    exit_code = 2


class Unconfirmed(YgoreplayError):
    """An entry that looks like one already stored, entered again (``application.repeated_turn``):
    nothing was written; the device that really means it sends it again confirmed. ``reason``
    names the check (``turn_repeated``, ``turn_empty``), the message is ``i18n.say``'s (English,
    translated where shown)."""

    exit_code = 2

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message
