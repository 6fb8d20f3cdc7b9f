"""The hash chain every record carries: each event's hash covers the one before it.

``hash(i) = sha256(hash(i-1) + msgpack([i, event, recorded time]))``, starting from the record's
root (32 random bytes when a duel is created). The store and the ``.ygr`` files use this one rule,
so a file exported from the store carries the store's own chain and the two can be checked
against each other; a changed, dropped or reordered event breaks every hash after it.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable

import msgpack

from .digests import sha256

GENESIS = b"\x00" * 32
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)


def to_ms(iso: str) -> int:
    """Milliseconds since the epoch, exactly (no float rounding); a time without zone is UTC."""
    when = datetime.fromisoformat(iso)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (when - _EPOCH) // _MS


def from_ms(ms: int) -> str:
    return (_EPOCH + ms * _MS).isoformat(timespec="milliseconds")


def canonical_time(iso: str) -> str:
    """A recording time as the chain covers it: UTC, to the millisecond (``...T12:00:00.000+00:00``),
    the one form it takes in the store and back out of a file."""
    return from_ms(to_ms(iso))


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def link(prev: bytes, position: int, event: dict, time: str, pack: Callable[[object], bytes] = msgpack.packb) -> bytes:
    """The hash of the event at ``position`` (its wire dict and recording time) after ``prev``.
    ``pack`` is ``msgpack.packb`` or the ``pack`` of a ``msgpack.Packer`` a loop of one thread
    made for itself (``packer``): ``packb`` makes a Packer and its buffer at every call, a third
    of a link (a seek checks ~16: issue 25); the bytes are the same."""
    return sha256(prev + pack([position, event, time])).digest()


def packer() -> Callable[[object], bytes]:
    """What ``msgpack.packb`` does, with one Packer kept: for one thread's loop of ``link`` calls
    (a Packer's buffer is not to be shared between threads)."""
    return msgpack.Packer().pack


def hashes(root: bytes, events: Iterable[dict], times: Iterable[str]) -> list[bytes]:
    """Every event's hash, chained from ``root``, with one msgpack packer for them all."""
    out, prev, pack = [], root, packer()
    append = out.append
    for position, (event, when) in enumerate(zip(events, times)):
        prev = sha256(prev + pack([position, event, when])).digest()     # ``link``, less a call an event
        append(prev)
    return out
