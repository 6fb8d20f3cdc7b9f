"""``digests``: SHA-256 and HMAC-SHA-256 by the interpreter's own SHA-256 until a process has hashed
``SWITCH_AFTER`` bytes or loaded OpenSSL, then by ``hashlib`` (issue 25: a fresh ``show DUEL --at N``
does not link OpenSSL). Whichever hashes, the digests and tags are ``hashlib``'s and ``hmac``'s."""
from __future__ import annotations

import hashlib
import hmac
import subprocess
import sys

import pytest

from conftest import ROOT

from ygoreplay import digests

SIZES = (0, 1, 55, 56, 63, 64, 65, 127, 128, 1000, 100_000)


@pytest.mark.parametrize("size", SIZES)
def test_a_digest_is_hashlibs(size):
    data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    made = digests.sha256(data)
    assert made.digest() == hashlib.sha256(data).digest()
    assert made.hexdigest() == hashlib.sha256(data).hexdigest()
    twin = made.copy()
    twin.update(b"more")
    assert twin.digest() == hashlib.sha256(data + b"more").digest() and made.digest() == hashlib.sha256(data).digest()
    assert digests.sha256().digest() == hashlib.sha256().digest()


@pytest.mark.parametrize("key_size", (0, 1, 32, 63, 64, 65, 200))
@pytest.mark.parametrize("size", (0, 1, 64, 5000))
def test_a_tag_is_hmacs(key_size, size):
    """Keys shorter than a block, a block long and longer (hashed first), as ``hmac`` makes them;
    the pads are copied, so one key tags many messages."""
    key, message = bytes(range(key_size)), b"m" * size
    pads = digests.hmac_pads(key)
    assert digests.hmac_sha256(pads, message) == hmac.digest(key, message, "sha256")
    assert digests.hmac_sha256(pads, message + b"x") == hmac.digest(key, message + b"x", "sha256")


def test_comparing_tags():
    tag = hmac.digest(b"k", b"m", "sha256")
    assert digests.compare_digest(tag, bytes(tag))
    assert not digests.compare_digest(tag, tag[:-1] + bytes([tag[-1] ^ 1]))
    assert not digests.compare_digest(tag, tag[:-1])


def fresh(script: str) -> str:
    """What ``script`` prints in a fresh interpreter (this one has OpenSSL loaded)."""
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def test_openssl_is_loaded_once_a_process_has_hashed_enough():
    """Under ``SWITCH_AFTER`` bytes nothing loads OpenSSL; past it ``hashlib.sha256`` hashes for
    the rest of the process; every digest on the way is the same."""
    out = fresh(
        "import sys, _sha256\n"
        "from ygoreplay import digests\n"
        "small = digests.sha256(b'a' * 1000)\n"
        "print(type(small) is type(_sha256.sha256()), '_hashlib' in sys.modules)\n"
        "big = digests.sha256(b'b' * digests.SWITCH_AFTER)\n"
        "import hashlib\n"
        "print(type(big) is type(hashlib.sha256()), digests._openssl is hashlib.sha256)\n"
        "print(small.hexdigest() == hashlib.sha256(b'a' * 1000).hexdigest(),"
        " big.hexdigest() == hashlib.sha256(b'b' * digests.SWITCH_AFTER).hexdigest())\n")
    assert out.split("\n")[:3] == ["True False", "True True", "True True"]


def test_a_process_that_loaded_openssl_hashes_with_it_at_once():
    out = fresh("import hashlib\nfrom ygoreplay import digests\n"
                "print(type(digests.sha256(b'x')) is type(hashlib.sha256()), digests._openssl is hashlib.sha256)\n")
    assert out.split() == ["True", "True"]
