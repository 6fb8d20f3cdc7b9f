"""The organiser's key: Ed25519 signatures on what leaves the store, checked against public keys.

The store's administrator can always rewrite the database; what protects a record against that
is the organiser's signature on every duel's head (count and head hash) and on every file
exported from the store. The private key lives in a file only its owner can read
(``$YGOREPLAY_KEY`` or ``organiser.key`` in the user's ygoreplay folder), created on first use
from the operating system's randomness; nothing public goes into it (its public half is kept
beside it, in ``organiser.key.public``, with a MAC only the key makes: ``OrganiserKey.public``). A
public key is written ``ed25519:<base64url>`` and is what a judge or a player passes to ``verify --key``.

Every signed message starts with a label naming what it is (``ygoreplay/head/2``,
``ygoreplay/file/3``, ...), so a signature over one kind of statement can never be passed off as
another. Many messages can share one signature over the root of a Merkle tree of them (``tree``),
each kept with its audit path (``root_of``): the store's group commit signs its anchors so.
"""
from __future__ import annotations

import base64
import os
import stat
import sys
from typing import TYPE_CHECKING, Any, Sequence

import msgpack

from .digests import compare_digest, hmac_pads, hmac_sha256, sha256
from .errors import InputError
from .files import data_folder, open_readable, path_text, write_atomic
from .i18n import say, t
from .lazy_dataclass import dataclass
from .text import printable

ENV_VAR = "YGOREPLAY_KEY"
PREFIX = "ed25519:"
SIGNATURE_SIZE = 64
PUBLIC_SIZE = 32

# cryptography is imported where a key is used, not with this module: the commands that only read
# a duel (check, show, log) never sign or check a signature, and it was a tenth of their start-up.
if TYPE_CHECKING:
    from pathlib import Path

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


#: The key last loaded, by its file's path and content: parsed again only when the file changed.
_LOADED: dict[tuple[str, bytes], "OrganiserKey"] = {}
_PKCS8_ED25519 = bytes.fromhex("302e020100300506032b657004220420")   # DER before the 32-byte seed
#: What the key of ``OrganiserKey.mac`` is derived with from the private key's seed.
_MAC_KEY_LABEL = b"ygoreplay/mac-key/1\0"
#: Beside a key file, the name of the file that keeps its public half, and what that half's MAC
#: is made over (``OrganiserKey.public``).
_PUBLIC_CACHE = ".public"
_PUBLIC_LABEL = b"ygoreplay/public-key/1\0"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _ed25519_seed(data: bytes) -> bytes | None:
    """The seed of an unencrypted PKCS#8 Ed25519 key in PEM, the form ``to_pem`` writes, read
    without cryptography's serialization module: a reader that only checks signatures needs the
    public half, and importing that module was most of showing a stored board (issue 25). None
    for any other form (``load_pem_private_key`` reads those)."""
    lines = data.strip().splitlines()
    if len(lines) < 3 or lines[0] != b"-----BEGIN PRIVATE KEY-----" or lines[-1] != b"-----END PRIVATE KEY-----":
        return None
    try:
        der = base64.b64decode(b"".join(lines[1:-1]), validate=True)
    except ValueError:
        return None
    return der[len(_PKCS8_ED25519):] if len(der) == 48 and der.startswith(_PKCS8_ED25519) else None


def default_key_path() -> Path:
    """``$YGOREPLAY_KEY``, else ``organiser.key`` in the user's ygoreplay folder."""
    from pathlib import Path
    return Path(_default_key_file())


def _default_key_file() -> str:
    """``str(default_key_path())``, made without pathlib (a board's read loads the key)."""
    return path_text(os.environ.get(ENV_VAR) or path_text(data_folder(), "organiser.key"))


@dataclass(frozen=True)
class PublicKey:
    """An organiser's public key: checks signatures, names itself by a short fingerprint."""

    raw: bytes

    def __post_init__(self) -> None:
        if len(self.raw) != PUBLIC_SIZE:
            raise InputError(say("an Ed25519 public key is {PUBLIC_SIZE} bytes, not {count}",
                                 PUBLIC_SIZE=PUBLIC_SIZE, count=len(self.raw)))

    @property
    def text(self) -> str:
        return PREFIX + base64.urlsafe_b64encode(self.raw).rstrip(b"=").decode()

    @property
    def fingerprint(self) -> str:
        return sha256(self.raw).hexdigest()[:16]

    def verify(self, signature: bytes, message: bytes) -> bool:
        if len(signature) != SIGNATURE_SIZE:
            return False
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        try:
            Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, message)
        except InvalidSignature:
            return False
        return True

    @classmethod
    def parse(cls, spec: str) -> "PublicKey":
        """``ed25519:<base64url>``, or the path of a file holding that text (or a private key)."""
        text = spec.strip()
        if not text.startswith(PREFIX):
            from pathlib import Path
            path = Path(text)
            if not path.is_file():
                raise InputError(say("{spec!r} is neither a public key (ed25519:...) nor a key file",
                                     spec=spec))
            try:
                with open_readable(path, "key file") as f:
                    content, mode = f.read(16384), os.fstat(f.fileno()).st_mode
            except OSError as exc:
                raise InputError(say("{path}: cannot read ({reason})", path=path, reason=exc.strerror or exc)) from None
            if b"PRIVATE KEY" in content:
                warn_if_exposed(path, mode)
                return OrganiserKey.from_pem(content, str(path)).public
            text = content.decode("ascii", errors="replace").strip()
            if not text.startswith(PREFIX):
                raise InputError(say("{path}: not a public key (a line 'ed25519:...')", path=path))
        body = text[len(PREFIX):]
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        except (ValueError, TypeError):
            raise InputError(say("{spec!r}: the key is not base64url", spec=spec)) from None
        if len(raw) != PUBLIC_SIZE:
            raise InputError(say("{spec!r}: an Ed25519 public key is {PUBLIC_SIZE} bytes, not {count}",
                                 spec=spec, PUBLIC_SIZE=PUBLIC_SIZE, count=len(raw)))
        return cls(raw)


class OrganiserKey:
    """The private key that signs: heads of stored duels, snapshots, exported files.

    It is held as its seed; cryptography's key object is made when it first signs or is
    written. Its public half is an Ed25519 scalar multiplication of the seed, and cryptography's
    import for it was a sixth of a fresh ``show DUEL --at N`` (issue 25): a key ``load`` read
    keeps that half beside its file once derived (``_PUBLIC_CACHE``), vouched for by a MAC made
    with the seed, and reads it back from there, never trusting it otherwise."""

    def __init__(self, private: Ed25519PrivateKey, path: str = "") -> None:
        self._seed = private.private_bytes_raw()
        self._private: Ed25519PrivateKey | None = private
        self.path = path
        self._public: PublicKey | None = None
        self._mac_key: tuple[Any, Any] | None = None   # ``digests.hmac_pads``
        self._cached = False                     # whether its public half is kept beside its file

    @classmethod
    def _of_seed(cls, seed: bytes, path: str, cached: bool) -> "OrganiserKey":
        """The key of this 32-byte seed, cryptography's object not made yet."""
        key = cls.__new__(cls)
        key._seed, key._private, key.path, key._public, key._mac_key, key._cached = seed, None, path, None, None, cached
        return key

    @property
    def public(self) -> PublicKey:
        """Its public half: read back from beside its file when the MAC there holds, else derived
        (and, for a key ``load`` read, kept there for the next process)."""
        if self._public is None:
            raw = self._read_public() if self._cached else None
            if raw is None:
                raw = self._key().public_key().public_bytes_raw()
                if self._cached:
                    self._keep_public(raw)
            self._public = PublicKey(raw)
        return self._public

    def _key(self) -> Ed25519PrivateKey:
        if self._private is None:
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
            self._private = Ed25519PrivateKey.from_private_bytes(self._seed)
        return self._private

    def _public_tag(self, raw: bytes) -> bytes:
        return self.mac(_PUBLIC_LABEL + raw)

    def _read_public(self) -> bytes | None:
        """The public half kept beside the key's file, if its MAC (made with this seed) holds."""
        try:
            fd = os.open(self.path + _PUBLIC_CACHE, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW)   # a pipe: no wait
            try:
                data = os.read(fd, 256) if stat.S_ISREG(os.fstat(fd).st_mode) else b""   # nor a device read
            finally:
                os.close(fd)
            raw, tag = (base64.b64decode(part, validate=True) for part in data.split())
        except (OSError, ValueError):
            return None
        return raw if len(raw) == PUBLIC_SIZE and compare_digest(self._public_tag(raw), tag) else None

    def _keep_public(self, raw: bytes) -> None:
        """Keep the derived public half beside the key's file; where it cannot be written (a
        folder not the user's to write), it is derived again next time. A symbolic link in its
        place is never written through: the write replaces the link itself, whenever it was
        planted (a check before the write left a window between the two)."""
        line = base64.b64encode(raw) + b" " + base64.b64encode(self._public_tag(raw)) + b"\n"
        try:
            write_atomic(self.path + _PUBLIC_CACHE, line, mode=0o600, follow=False)
        except (OSError, InputError):
            pass

    def sign(self, message: bytes) -> bytes:
        return self._key().sign(message)

    def mac(self, message: bytes) -> bytes:
        """HMAC-SHA-256 of ``message`` under a key derived from this private key's seed (never
        from anything public): only a holder of this key makes or checks one, and checking it is
        some fifty times cheaper than a signature. It never replaces the signature: a reader that
        holds only the public key (``verify --key``) checks that."""
        if self._mac_key is None:
            self._mac_key = hmac_pads(hmac_sha256(hmac_pads(self._seed), _MAC_KEY_LABEL))
        return hmac_sha256(self._mac_key, message)

    def check_mac(self, tag: object, message: bytes) -> bool:
        """Whether ``tag`` is this key's ``mac`` of ``message`` (compared in constant time)."""
        return isinstance(tag, bytes) and compare_digest(self.mac(message), tag)

    @classmethod
    def generate(cls) -> "OrganiserKey":
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_pem(cls, data: bytes, where: str = "key", *, cached: bool = False) -> "OrganiserKey":
        """The key of a PEM file's text (``where`` names it); ``cached``: ``where`` is its file,
        beside which its public half is kept (``load``)."""
        seed = _ed25519_seed(data)
        if seed is not None:                       # the form ``to_pem`` writes
            return cls._of_seed(seed, where, cached)
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        try:
            private = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise InputError(say("{where}: not a readable private key ({exc})", where=where, exc=exc)) from None
        if not isinstance(private, Ed25519PrivateKey):
            raise InputError(say("{where}: not an Ed25519 private key", where=where))
        return cls._of_seed(private.private_bytes_raw(), where, cached)

    def to_pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization
        return self._key().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption())

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> "OrganiserKey | None":
        """The key in ``path`` (default: ``default_key_path()``), or None when there is none."""
        path = path_text(os.fspath(path)) if path else _default_key_file()    # as str(Path(path)), no pathlib
        try:
            with open_readable(path, "private key") as f:
                data, mode = f.read(16384), os.fstat(f.fileno()).st_mode
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InputError(say("{path}: cannot read the organiser key ({reason})",
                                 path=path, reason=exc.strerror or exc)) from None
        found = _LOADED.get((str(path), data))
        if found is None:                    # each Store that checks a signature asks (a board per request)
            warn_if_exposed(path, mode)      # said once a process, not once a request
            found = cls.from_pem(data, str(path), cached=True)
            _LOADED.clear()
            _LOADED[(str(path), data)] = found
        return found

    @classmethod
    def load_or_create(cls, path: str | os.PathLike[str] | None = None) -> tuple["OrganiserKey", bool]:
        """The organiser key, created (readable by its owner only) if there is none yet; and
        whether it was created now."""
        from pathlib import Path
        path = Path(path) if path else default_key_path()
        key = cls.load(path)
        if key is not None:
            return key, False
        key = cls.generate()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(say("{parent}: cannot create the folder for the organiser key ({reason})",
                                 parent=path.parent, reason=exc.strerror or exc)) from None
        try:
            write_atomic(path, key.to_pem(), mode=0o600, exclusive=True)
        except FileExistsError:                  # another process created it first: use theirs
            return cls.load(path), False
        key.path, key._cached = str(path), True
        return key, True


def warn_if_exposed(path: str | os.PathLike[str], mode: int) -> None:
    """Say on stderr that a private key file others can read is one (its ``mode``, as ``fstat``
    of the file read gave it), with the fix: whoever reads it signs as its owner. OpenSSH refuses
    such a key; here it is still used, as a store's own records are checked with it (refused,
    a key copied without its mode, or mounted 0644 by a container, would stop every read of the
    store): the owner is told, naming the file (escaped, as every printed name is)."""
    if os.name == "nt" or not mode & 0o077:          # Windows keeps no such bits: its ACLs decide
        return
    import shlex                                     # only here: a seek reads a key file kept private
    shown = printable(str(path))
    sys.stderr.write(t("warning: the private key {path} can be read by other users (mode {mode}): anyone who "
                       "reads it can sign as you; make it yours alone: chmod 600 {quoted}",
                       path=shown, mode=f"{mode & 0o777:04o}", quoted=printable(shlex.quote(str(path)))) + "\n")
    sys.stderr.flush()


def digest(*parts: bytes) -> bytes:
    """SHA-256 of the parts, each length-prefixed so that no two different lists collide."""
    h = sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.digest()


#: What a receipt signs (``receipts.Receipt``): version 1 alone, version 2 as a leaf of its group
#: commit's tree (``store._Committer._sign``): each message begins with its version's label, so
#: neither is read as the other, nor as an anchor's.
RECEIPT_LABELS = {1: b"ygoreplay/receipt/1\0", 2: b"ygoreplay/receipt/2\0"}
#: The kind of stream a receipt is of when it names none: a duel's or a match's head.
STREAM_RECEIPT = "duel"


def receipt_message(version: int, duel: str, events: int, head: bytes, time: str,
                    kind: str = STREAM_RECEIPT) -> bytes:
    """What a receipt of ``version`` signs: its label and the msgpack list ``[duel, events, head,
    time]``, and its ``kind`` at the end when it is not a stream's (a round's seal: ``rounds``),
    so that no receipt of one kind is read as another's whose id it shares the form of."""
    fields = [duel, events, head, time] if kind == STREAM_RECEIPT else [duel, events, head, time, kind]
    return RECEIPT_LABELS[version] + msgpack.packb(fields)


#: The most steps an audit path may have (``root_of``): a group of 2**32 messages. A group commit
#: signs at most a few hundred (``store._Committer.BATCH``); a longer path is refused unhashed.
MAX_PATH = 32
HASH_SIZE = 32
# Domain separation of the tree's hashes: a leaf's input can never be read as two children's,
# so no inner node is passed off as a signed message nor a message as a node.
_LEAF, _NODE = b"\0", b"\1"


def _leaf(message: bytes) -> bytes:
    return sha256(_LEAF + message).digest()


def tree(messages: Sequence[bytes]) -> tuple[bytes, list[tuple[bytes, int]]]:
    """One signature over many messages (issue 25: a group commit's anchors): the root of a
    SHA-256 Merkle tree of ``messages`` and each one's audit path, as ``(siblings, left)``: the
    siblings from the leaf up, concatenated (32 bytes each), and a bit per step, set when that
    sibling is on the left. A level's odd last node goes up unpaired (no step on its path)."""
    if not messages:
        raise ValueError("a tree of no messages")
    level = [_leaf(message) for message in messages]
    paths = [bytearray() for _ in messages]
    lefts = [0] * len(messages)
    under = [[i] for i in range(len(messages))]      # the leaves under each node of the level
    while len(level) > 1:
        above, groups = [], []
        for j in range(0, len(level) - 1, 2):
            left, right = level[j], level[j + 1]
            for i in under[j]:
                paths[i] += right
            for i in under[j + 1]:
                lefts[i] |= 1 << len(paths[i]) // HASH_SIZE
                paths[i] += left
            above.append(sha256(_NODE + left + right).digest())
            groups.append(under[j] + under[j + 1])
        if len(level) % 2:
            above.append(level[-1])
            groups.append(under[-1])
        level, under = above, groups
    return level[0], [(bytes(path), left) for path, left in zip(paths, lefts)]


def check_path(path: object, left: object) -> None:
    """Refuse (ValueError) an audit path that is not ``tree``'s form: whole 32-byte siblings, at
    most ``MAX_PATH`` of them, and a bit for each step only."""
    if not isinstance(path, bytes) or len(path) % HASH_SIZE:
        raise ValueError(f"an audit path is whole {HASH_SIZE}-byte hashes, not "
                         f"{len(path) if isinstance(path, bytes) else type(path).__name__} bytes")
    steps = len(path) // HASH_SIZE
    if steps > MAX_PATH:
        raise ValueError(f"an audit path of {steps} steps is longer than {MAX_PATH}")
    if type(left) is not int or not 0 <= left < 1 << steps:
        raise ValueError(f"an audit path's sides are {steps} bits, not {left!r}")


def root_of(message: bytes, path: bytes, left: int) -> bytes:
    """The root that ``message`` and its audit path (``tree``'s form, ``check_path``) lead to:
    its signature is the group's, over that root."""
    check_path(path, left)
    node = _leaf(message)
    for step in range(len(path) // HASH_SIZE):
        sibling = path[step * HASH_SIZE:(step + 1) * HASH_SIZE]
        node = sha256(_NODE + (sibling + node if left >> step & 1 else node + sibling)).digest()
    return node
