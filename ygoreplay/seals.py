"""Seals: a player's device commits to the identity of a hidden card of its own, and opens it later.

When each player records their own side, the service must hold what each device saw of its own
hidden cards (a hand, a Set card) without learning it: the device writes a *seal*, a SHA-256
over the passcode and a fresh random nonce, and keeps the nonce. Opening the seal (passcode and
nonce, ``cards_opened``) proves the card was that card all along (LOG-11). The nonce is 16 random
bytes from ``secrets`` (the operating system's randomness), never derived from anything public:
without it a seal of one of the ~13,000 passcodes could be found by trying them all.

The hashed message is domain-separated (``ygoreplay/seal/1``, the passcode as 4 big-endian
bytes, the nonce), so a seal can never be passed off as any other hash the program makes. A seal
is written ``sha256:<64 hex digits>``, a nonce as 32 hex digits.
"""
from __future__ import annotations

import re

PREFIX = "sha256:"
NONCE_BYTES = 16
_LABEL = b"ygoreplay/seal/1\x00"
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_NONCE = re.compile(r"(?:[0-9a-f]{2}){16,64}")


def digest_of(code: int, nonce: bytes) -> str:
    """The seal of ``code`` under ``nonce``: deterministic, so an opening can be checked."""
    import hashlib                          # here, as secrets and hmac below: OpenSSL loads in 1-3 ms
    return PREFIX + hashlib.sha256(_LABEL + code.to_bytes(4, "big") + nonce).hexdigest()


def seal(code: int) -> tuple[str, str]:
    """Seal a passcode with a fresh nonce: ``(digest, nonce as hex)``; the device keeps the nonce
    secret until the card is opened."""
    if not 0 < code < 1 << 32:
        raise ValueError(f"a sealed card is a passcode 1..{(1 << 32) - 1}, got {code}")
    import secrets                          # here: the event vocabulary imports this module; reading seals nothing
    nonce = secrets.token_bytes(NONCE_BYTES)
    return digest_of(code, nonce), nonce.hex()


def opens(digest: str, code: int, nonce: str) -> bool:
    """Does (``code``, ``nonce``) open the seal ``digest``? Compared in constant time."""
    if not is_nonce(nonce) or not 0 <= code < 1 << 32:
        return False
    import hmac
    return hmac.compare_digest(digest_of(code, bytes.fromhex(nonce)), digest)


def is_digest(text: str) -> bool:
    """A seal as written: ``sha256:`` and 64 lower-case hex digits."""
    return _DIGEST.fullmatch(text) is not None


def is_nonce(text: str) -> bool:
    """A nonce as written: 16 to 64 bytes in lower-case hex (a weaker one could be guessed)."""
    return _NONCE.fullmatch(text) is not None
