"""The package's one exception base, and what each kind of error means to a user.

Every error ygoreplay raises on purpose derives from ``YgoreplayError`` and carries the exit code
the command line ends with, so the CLI (and the HTTP service) map errors in one place:

* ``InputError`` (2): a file, argument or request that cannot be read or used: says what and where;
* ``RuleViolation`` (1, in ``rules.base``): an event the rules refuse, with its rule ID;
* ``VerificationError`` (1): a record or file that fails verification (altered, truncated,
  signed by no trusted key); nothing is derived from it;
* ``StoreError`` (2): the store cannot be opened, read or written as asked;
* ``ConflictError`` (3): another writer appended to the same duel first; nothing was written;
* ``Forbidden`` (2): the caller's role may not do this (``access.WRITERS``): the service's 403.
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
    """A store problem a user can act on: unreachable database, unknown duel, a file that is not a store."""

    exit_code = 2


class ConflictError(StoreError):
    """Another writer appended at the same position first; nothing of this append was written."""

    exit_code = 3


class Forbidden(YgoreplayError):
    """A write the caller's role may not make (``access.WRITERS``); nothing was written."""

    exit_code = 2
