"""SHA-256 and HMAC-SHA-256 without loading OpenSSL until it pays (issue 25: start-up).

``import hashlib`` loads OpenSSL's ``libcrypto`` at once: 10 M instructions, linking it, some
3.5% of a fresh ``show DUEL --at N``, which hashes a few kilobytes (a snapshot, ~16 chain links,
a few MACs). ``sha256`` here is the interpreter's own SHA-256 (``_sha256``, no shared library)
until a process has hashed ``SWITCH_AFTER`` bytes through it, or until something else loaded
OpenSSL; from then on it is ``hashlib.sha256``, which is up to six times as fast on long
messages (SHA instructions). Both give the same digest of the same bytes, and their hash
objects the same ``update``, ``copy``, ``digest`` and ``hexdigest``: which one a process uses
changes its speed, never a hash or a MAC. ``compare_digest`` is the constant-time comparison
``hmac.compare_digest`` is when OpenSSL is not there (``_operator``'s, in C)."""
from __future__ import annotations

import sys
from _operator import _compare_digest as compare_digest
from typing import Any, Callable

try:
    from _sha256 import sha256 as _builtin          # the interpreter's own (3.11's name)
except ImportError:                                  # a build without it: OpenSSL's from the start
    _builtin = None

__all__ = ["compare_digest", "hmac_sha256", "sha256"]

#: Bytes hashed by the built-in SHA-256 before OpenSSL's is loaded for the rest of the process:
#: a short command (a board, a check) stays under it; a long one (an import, a store's
#: verification, a resident) is past it within its first milliseconds.
SWITCH_AFTER = 1 << 20
_hashed = 0
#: ``hashlib.sha256`` once chosen (then for good).
_openssl: Callable[..., Any] | None = None
_BLOCK = 64                                          # SHA-256's block, in bytes


def sha256(data: bytes = b"", /) -> Any:
    """A SHA-256 hash object of ``data``, as ``hashlib.sha256(data)`` (see the module)."""
    made = _openssl
    if made is None:
        made = _choose(len(data))
    return made(data)


def _choose(size: int) -> Callable[..., Any]:
    """The built-in SHA-256 while under ``SWITCH_AFTER`` and OpenSSL is not loaded, else
    ``hashlib.sha256``, from then on."""
    global _hashed, _openssl
    _hashed += size
    if _builtin is not None and _hashed <= SWITCH_AFTER and "_hashlib" not in sys.modules:
        return _builtin
    import hashlib
    _openssl = hashlib.sha256
    return _openssl


def hmac_pads(key: bytes) -> tuple[Any, Any]:
    """HMAC-SHA-256's inner and outer hashes (RFC 2104) with ``key``'s padded blocks already
    hashed, to be copied for each message (``hmac_sha256``). A key longer than a block is
    hashed first, as ``hmac`` does."""
    if len(key) > _BLOCK:
        key = sha256(key).digest()
    block = key.ljust(_BLOCK, b"\0")
    return sha256(bytes(b ^ 0x36 for b in block)), sha256(bytes(b ^ 0x5C for b in block))


def hmac_sha256(pads: tuple[Any, Any], message: bytes) -> bytes:
    """The HMAC-SHA-256 tag of ``message`` under the key ``pads`` were made of: the bytes
    ``hmac.digest(key, message, "sha256")`` gives."""
    inner, outer = pads[0].copy(), pads[1].copy()
    inner.update(message)
    outer.update(inner.digest())
    return outer.digest()
