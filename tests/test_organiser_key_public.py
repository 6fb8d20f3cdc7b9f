"""The organiser key's public half kept beside its file (issue 25: deriving it imported
cryptography, a sixth of a fresh ``show DUEL --at N``): written once derived, read back only
when the MAC made with the key's seed holds, derived again (and kept anew) otherwise."""
from __future__ import annotations

import base64
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from ygoreplay import files, signing
from ygoreplay.signing import OrganiserKey


@pytest.fixture
def key_path(tmp_path) -> str:
    signing._LOADED.clear()              # each test reads its key file afresh
    yield str(tmp_path / "organiser.key")
    signing._LOADED.clear()


def _loaded(path: str) -> OrganiserKey:
    signing._LOADED.clear()
    key = OrganiserKey.load(path)
    assert key is not None
    return key


def test_a_loaded_key_keeps_its_public_half_and_reads_it_back_without_cryptography(key_path):
    created, made = OrganiserKey.load_or_create(key_path)
    assert made
    public = created.public
    kept = key_path + ".public"
    assert os.path.isfile(kept) and os.stat(kept).st_mode & 0o777 == 0o600
    assert _loaded(key_path).public == public
    code = ("import sys; from ygoreplay.signing import OrganiserKey; key = OrganiserKey.load(sys.argv[1]); "
            "print(key.public.text); print(sorted(m for m in sys.modules if m.startswith('cryptography')))")
    done = subprocess.run([sys.executable, "-c", code, key_path], cwd=ROOT, capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.splitlines() == [public.text, "[]"]
    signature = _loaded(key_path).sign(b"message")                    # it still signs, as the same key
    assert public.verify(signature, b"message")


@pytest.mark.parametrize("forged", ["another key's half, its MAC by that key", "another key's half, no MAC",
                                    "this key's half, a wrong MAC", "not two parts", "a half of 31 bytes"])
def test_a_kept_public_half_whose_mac_does_not_hold_is_derived_again_and_kept_anew(key_path, forged):
    key, _ = OrganiserKey.load_or_create(key_path)
    public = key.public
    kept = key_path + ".public"
    with open(kept, "rb") as f:
        good = f.read()
    other = OrganiserKey.generate()
    raw = other.public.raw
    line = {"another key's half, its MAC by that key": base64.b64encode(raw) + b" " + base64.b64encode(
                other.mac(signing._PUBLIC_LABEL + raw)),
            "another key's half, no MAC": base64.b64encode(raw),
            "this key's half, a wrong MAC": base64.b64encode(public.raw) + b" " + base64.b64encode(bytes(32)),
            "not two parts": b"ed25519: x y z",
            "a half of 31 bytes": base64.b64encode(public.raw[:31]) + b" " + base64.b64encode(
                key.mac(signing._PUBLIC_LABEL + public.raw[:31]))}[forged]
    with open(kept, "wb") as f:
        f.write(line + b"\n")
    assert _loaded(key_path).public == public
    with open(kept, "rb") as f:
        assert f.read() == good                                      # derived again, and kept again


def test_a_link_or_a_pipe_in_the_halfs_place_is_neither_read_through_nor_written_through(key_path, tmp_path):
    key, _ = OrganiserKey.load_or_create(key_path)
    public = key.public
    kept = key_path + ".public"
    assert os.path.isfile(kept)
    other = OrganiserKey.generate().public.raw          # another half, with this key's own MAC: read
    decoy = tmp_path / "elsewhere"                       # through a link, it would be believed
    decoy.write_bytes(base64.b64encode(other) + b" " + base64.b64encode(key.mac(signing._PUBLIC_LABEL + other)))
    os.remove(kept)
    os.symlink(decoy, kept)
    assert _loaded(key_path).public == public
    assert decoy.read_bytes().startswith(base64.b64encode(other))       # the link replaced, not its file
    assert os.path.isfile(kept) and not os.path.islink(kept) and _loaded(key_path).public == public
    os.remove(kept)
    os.mkfifo(kept)                                      # opened, it would wait for a writer
    assert _loaded(key_path).public == public


def test_a_link_planted_just_before_the_halfs_write_is_replaced_not_written_through(key_path, tmp_path,
                                                                                     monkeypatch):
    """A check for a link and then a write that resolves one left a window: a link planted between
    them had the half written over the file it named. The write itself resolves nothing now."""
    key, _ = OrganiserKey.load_or_create(key_path)
    public = key.public
    kept = key_path + ".public"
    os.remove(kept)
    victim = tmp_path / "victim"
    victim.write_bytes(b"not the key's to write\n")
    resolve = files._target

    def planted(path, *args, **kwargs):                  # the link appears as the write begins
        if str(path) == kept and not os.path.lexists(kept):
            os.symlink(victim, kept)
        return resolve(path, *args, **kwargs)

    monkeypatch.setattr(files, "_target", planted)
    assert _loaded(key_path).public == public
    assert victim.read_bytes() == b"not the key's to write\n"
    assert os.path.isfile(kept) and not os.path.islink(kept)
    monkeypatch.undo()
    assert _loaded(key_path).public == public
