"""A store URL naming no file the system can open (a NUL, ``%00``; a ``~user`` with no home)
is refused as the URL's fault, naming it, never an internal error (attack21c)."""
from __future__ import annotations

import pytest

from ygoreplay.errors import StoreError
from ygoreplay.store import Store


@pytest.mark.parametrize("url", ["sqlite:duels%00.sqlite", "duels.sqlite\x00x", "~no-such-user-21c/duels.sqlite",
                                 "sqlite:~no-such-user-21c/duels.sqlite"])
@pytest.mark.parametrize("readonly", [True, False])
def test_a_store_url_no_file_can_have_is_refused_naming_it(url, readonly, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError, match="store URL") as refused:
        Store(url, readonly=readonly)
    assert repr(url) in str(refused.value)
    assert list(tmp_path.iterdir()) == []          # nothing was made


@pytest.mark.parametrize("url", ["file://otherhost/{dir}/s.sqlite", "sqlite://otherhost/{dir}/s.sqlite",
                                 "sqlite://s.sqlite"])
@pytest.mark.parametrize("readonly", [True, False])
def test_a_store_url_naming_another_host_is_refused_not_opened_here(url, readonly, tmp_path, monkeypatch):
    """``file://otherhost/path`` opened this machine's ``/path`` (the host dropped, silently); a
    host with no path named the working folder. Both are refused naming the URL, nothing made;
    ``localhost`` is this machine and opens as ``sqlite:///path`` does."""
    monkeypatch.chdir(tmp_path)
    url = url.format(dir=tmp_path)
    with pytest.raises(StoreError, match="is a host") as refused:
        Store(url, readonly=readonly)
    assert repr(url) in str(refused.value)
    assert list(tmp_path.iterdir()) == []
    Store(f"sqlite://localhost/{tmp_path}/s.sqlite")
    assert (tmp_path / "s.sqlite").is_file()
